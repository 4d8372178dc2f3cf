import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { tempDir } from '../kit/index.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';

const CLI = fileURLToPath(new URL('../../bin/plugsmith.js', import.meta.url));

/** The CLI spawned with `args`, its reader going away at the first output (`| head -1`): its exit code and stderr. */
async function withReaderGone(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stderr };
}

// `plugsmith emulator openapi | head`: the reader closes the pipe after its first lines.
it('a reader that closes stdout early ends the command quietly (exit 0, no EPIPE stack)', async () => {
  const { code, stderr } = await withReaderGone(['emulator', 'openapi']);
  expect(stderr).not.toMatch(/EPIPE|at /);
  expect(code).toBe(0);
}, 60_000);

// `plugsmith scenario run --junit report.xml | head -1` in CI: the run goes on, the report is written, and the exit
// code is the verdict (a failed scenario is 1), never the 0 of a quietly ended output.
it('a verdict command finishes when its reader goes away: scenario run writes --junit and exits 1 on a failed scenario', async () => {
  const { emu, client } = await emulatorAndClient();
  const { pluginId } = await serveEchoPlugin(emu, client);
  await client.agentPlugins.install('agent_nova', {
    name: 'echo',
    pluginId,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  const dir = await tempDir();
  await writeFile(
    join(dir, 'wrong.json'),
    JSON.stringify({
      name: 'expects another reply',
      steps: [
        { id: 'conv', conversation: { agent: 'agent_nova' } },
        {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a scenario's reference to an earlier step, not a template literal
          message: { conversation: '${conv.id}', text: 'hello' },
          expect: [{ reply: { text: 'not what it says', withinMs: 2000 } }],
        },
      ],
    }),
  );
  // The reader takes the first line (the target) and goes away before the scenario has run.
  const { code, stderr } = await withReaderGone(
    ['scenario', 'run', 'wrong.json', '--plugin', pluginId, '--junit', 'report.xml'],
    {
      cwd: dir,
      env: {
        PLUGSMITH_CONFIG_DIR: join(dir, 'config'),
        PLUGSMITH_BASE_URL: emu.url,
        PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
        PLUGSMITH_TOKEN: emu.token!,
        PLUGSMITH_API_KEY: emu.apiKey!,
        PLUGSMITH_ADMIN_TOKEN: emu.adminToken,
      },
    },
  );
  expect(stderr).not.toMatch(/EPIPE|at /);
  expect(code, stderr).toBe(1);
  const report = await readFile(join(dir, 'report.xml'), 'utf8');
  expect(report).toContain('<failure');
  expect(report).toContain('expects another reply');
}, 60_000);
