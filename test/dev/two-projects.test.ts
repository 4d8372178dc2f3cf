import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, spawnCli, type CliProcess } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { freshMachine, tempDir, until } from '../kit/index.js';

const stderrOf = (devs: CliProcess[]) => devs.map((d) => d.stderr()).join('\n-----\n');
import { pythonProject, typescriptProject } from '../kit/project.js';

// Two projects of a monorepo, as `plugsmith init` writes them, on the same default plugin port, and two
// `plugsmith dev` started in the same second (`npm run dev --workspaces`, turbo, concurrently). Both saw
// the default free, so the second plugin died with EADDRINUSE and its challenge went to the first
// project's plugin (401). Now each dev claims its plugin's port in the per-user state before the plugin
// listens; both end ready (their own plugin answered its challenge), each project's trigger is answered
// by its own plugin. Real processes: dev spawned, the generated plugins, one HOME for both.

/** The manifest's default port (`${PORT:-3000}`) set to `port`, as it would be the same in both projects. */
async function defaultPortOf(dir: string, port: number): Promise<void> {
  const path = join(dir, 'plugsmith.json');
  const text = await readFile(path, 'utf8');
  const changed = text.replace(/\$\{PORT:-\d+\}/, `\${PORT:-${port}}`);
  expect(changed).not.toBe(text);
  await writeFile(path, changed);
}

describe.each([
  ['TypeScript', typescriptProject],
  ['Python', pythonProject],
] as const)('two %s projects', (_language, makeProject) => {
  test('two dev started in the same second both end ready on ports of their own and answer their own trigger', {
    timeout: 180_000,
  }, async () => {
    const env = await freshMachine();
    const defaultPort = await freePort();
    const work = await tempDir('plugsmith-monorepo-');
    const projects = [join(work, 'alpha'), join(work, 'beta')];
    for (const dir of projects) {
      await makeProject(dir, 'EVENT_HANDLER', env);
      await defaultPortOf(dir, defaultPort);
    }

    const devs = projects.map((cwd) =>
      spawnCli(['dev', '--emulator-port', '0', '--messaging-port', '0'], { cwd, env }),
    );
    await until('both to be ready', () => devs.every((d) => /ready: /.test(d.stderr())), {
      timeoutMs: 90_000,
      explain: () => stderrOf(devs),
    });
    const readyUrls = devs.map(
      (d) => /ready: the plugin answers its challenge at (\S+)/.exec(d.stderr())![1],
    );
    const readyPorts = readyUrls.map((url) => Number(new URL(url).port));
    expect(new Set(readyPorts).size, devs.map((d) => d.stderr()).join('\n-----\n')).toBe(2);
    // The default or ports claimed after it (another process of a parallel run may hold the default itself).
    for (const port of readyPorts) expect(port).toBeGreaterThanOrEqual(defaultPort);
    const started = (d: CliProcess) =>
      [...d.stderr().matchAll(/started the plugin: .*PORT=(\d+)/g)].map((m) => Number(m[1]));
    const lost = (d: CliProcess) =>
      [...d.stderr().matchAll(/could not listen on port (\d+) \(in use by another process\)/g)].map(
        (m) => Number(m[1]),
      );
    for (const [index, d] of devs.entries()) {
      const other = devs[1 - index]!;
      expect(d.stderr()).not.toMatch(/HTTP 401/);
      // The bug: both took the same port, and one plugin died on the other's. A port an unrelated process of a parallel
      // run takes between dev's check and the plugin's bind (an outgoing connection's ephemeral port) is dev's to move
      // from, and it says so; it is never a port the other dev's plugin was started on.
      if (/EADDRINUSE|Address already in use/.test(d.stderr()))
        expect(lost(d).length, stderrOf(devs)).toBeGreaterThan(0);
      for (const port of lost(d)) expect(started(other), stderrOf(devs)).not.toContain(port);
      // Ready is said once the plugin answered its challenge, after the verification.
      expect(d.stderr().indexOf('webhook verified')).toBeLessThan(d.stderr().indexOf('ready: '));
    }

    for (const cwd of projects) {
      const triggered = await runCli(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], { cwd, env });
      expect(triggered.code, triggered.stderr).toBe(0);
      expect(JSON.parse(triggered.stdout).reply).toMatchObject({ sender: 'CHARACTER' });
    }
    for (const d of devs) expect(await d.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});
