import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startForScenarios } from '../../src/scenario/start.js';
import { own } from '../kit/index.js';
import { LANGUAGES, scenarioProject } from '../kit/project.js';

// `scenario run --start` gives the plugin a free port, but only free until the plugin listens: another process may take it
// meanwhile (CI saw a Python plugin die on "Address already in use" on a busy machine). Such a start is made again on
// another free port, once the port is seen in use; the first port here is one a real listener holds.

/** A port a listener of this test holds until the test ends. */
async function takenPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return address.port;
}

describe.each(LANGUAGES)('a generated $language project', ({ code }) => {
  test('whose port another process took before it listened starts again on another port', async () => {
    const { dir, env } = await scenarioProject(code, { prefix: 'plugsmith-port-taken-' });
    const taken = await takenPort();
    const lines: string[] = [];
    const started = await startForScenarios({
      manifestPath: join(dir, 'plugsmith.json'),
      env: { ...process.env, ...env },
      log: (line) => lines.push(line),
      pluginPort: taken,
    });
    own(() => started.stop());
    const plugin = await started.client.plugins.get(started.pluginId);
    expect(plugin.webhookUrlIsVerified).toBe(true);
    const port = Number(new URL(String(plugin.webhookUrl)).port);
    expect(port).not.toBe(taken);
    expect(lines.join('\n')).toContain(
      `the plugin could not listen on port ${taken} (another process took it before the plugin listened): started again with PORT=${port}`,
    );
  });
});
