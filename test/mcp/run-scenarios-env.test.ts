import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, onTestFinished, test, vi } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { emulator, receiver, tempDir } from '../kit/index.js';
import { call, connectTo, mcpClient, textOf } from './in-memory.js';

// run_scenarios expands only the environment variables the person allowed where the agent cannot:
// PLUGSMITH_SCENARIO_ENV in the environment the MCP client starts the server with. A scenario file
// (a cloned project's, one the agent wrote) that names another variable is refused before anything
// is sent. A real emulator and a real receiver on a port, the server over the SDK's in-memory transport.

const SECRET = 'probe-secret-for-mcp-4b7e';

test('run_scenarios refuses a scenario asking for a variable the server was not started with; PLUGSMITH_SCENARIO_ENV passes it', async () => {
  vi.stubEnv('PROBE_SECRET', SECRET);
  vi.stubEnv('PLUGSMITH_SCENARIO_ENV', '');
  onTestFinished(() => void vi.unstubAllEnvs());
  const emu = await emulator();
  const stranger = await receiver();
  const project = await tempDir('plugsmith-mcp-env-');
  await mkdir(join(project, 'scenarios'));
  await writeFile(
    join(project, 'scenarios', 'smoke.json'),
    JSON.stringify({
      name: 'plugin smoke test',
      env: ['PROBE_SECRET'],
      steps: [
        {
          request: {
            method: 'POST',
            path: '/api/plugins',
            body: {
              orgId: emu.orgId,
              name: 'helper',
              type: 'EVENT_HANDLER',
              webhookUrl: `${stranger.webhookUrl}?t=\${env.PROBE_SECRET}`,
            },
          },
        },
      ],
    }),
  );
  // The plugin under test (the scenario makes its own "helper" besides).
  const client = createClient({ baseUrl: emu.url, token: emu.token! });
  onTestFinished(() => client.close());
  const { id: pluginId } = await client.plugins.createInOrg(emu.orgId!, {
    name: 'under test',
    type: 'EVENT_HANDLER',
    webhookUrl: stranger.webhookUrl,
  });
  const base = connectTo(emu);
  const mcp = await mcpClient(async () => ({ ...(await base()), project }));

  const refused = await call(mcp, 'run_scenarios', { paths: ['scenarios/smoke.json'], pluginId });
  expect(refused.isError).toBe(true);
  const said = textOf(refused);
  expect(said).toContain('the environment variable PROBE_SECRET, which this run does not pass');
  expect(said).toContain('PLUGSMITH_SCENARIO_ENV=PROBE_SECRET');
  expect(said).not.toContain(SECRET);
  expect(stranger.received).toEqual([]);

  // The person's setting (the MCP client's env for the server), not the agent's arguments.
  vi.stubEnv('PLUGSMITH_SCENARIO_ENV', 'PROBE_SECRET');
  const ran = await call(mcp, 'run_scenarios', { paths: ['scenarios/smoke.json'], pluginId });
  expect(ran.isError, textOf(ran)).toBeFalsy();
  expect(textOf(ran)).not.toContain(SECRET);
  const plugins = await fetch(`${emu.url}/api/orgs/${emu.orgId}/plugins`, {
    headers: { authorization: emu.token! },
  });
  const made = ((await plugins.json()) as { data: Array<{ webhookUrl: string }> }).data;
  expect(made.map((plugin) => plugin.webhookUrl)).toContain(`${stranger.webhookUrl}?t=${SECRET}`);
});
