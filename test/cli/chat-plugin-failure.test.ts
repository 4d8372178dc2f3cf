import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { stateFileOf } from '../kit/emulator-state.js';
import { freePort } from '../kit/ports.js';
import { tempDir } from '../kit/index.js';
import { makeReplyThrow, typescriptProject } from '../kit/project.js';

// Issue 43: `chat -m` against a plugin that fails the event, or accepts it and writes nothing. Before, both hung
// (killed after 60 s; --timeout changed nothing). A generated TypeScript project runs under `plugsmith dev`: its
// reply throws on "boom" (HTTP 500 and the error on its stderr) and writes nothing on "quiet" (HTTP 200).

test('chat -m ends at the failed attempt with the plugin’s own error, and after --timeout when no reply was written', async () => {
  const work = await tempDir('plugsmith-chat-failure-');
  const configDir = join(work, 'config');
  const env = {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  };
  const dir = join(work, 'plugin');
  await typescriptProject(dir, 'EVENT_HANDLER', env);
  await makeReplyThrow(dir, 'typescript');
  const pluginPath = join(dir, 'dist/plugin.js');
  const plugin = await readFile(pluginPath, 'utf8');
  const quiet = plugin.replace(
    'const content = await replyTo(message.content);',
    "if (message.content.includes('quiet')) return { ok: true };\n        const content = await replyTo(message.content);",
  );
  expect(quiet).not.toBe(plugin);
  await writeFile(pluginPath, quiet);

  const port = await freePort();
  const dev = spawnCli(
    ['dev', '--emulator-port', '0', '--messaging-port', '0', '--plugin-port', String(port)],
    { cwd: dir, env },
  );
  onTestFinished(async () => {
    await dev.stop('SIGTERM');
  });
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  const state = JSON.parse(await readFile(stateFileOf(configDir, dir), 'utf8'));
  const characters = await fetch(`${state.url}/_emulator/characters`, {
    headers: { 'x-plugsmith-admin': state.adminToken },
  }).then((r) => r.json() as Promise<{ data: { id: string }[] }>);
  const characterId = characters.data[0].id;

  // The plugin answers 500: the chat ends at once (well within its 60 s --timeout), exit 1, with the error.
  const failed = await runCli(['chat', characterId, '-m', 'please go boom', '--timeout', '60'], {
    cwd: dir,
    env,
    timeoutMs: 50_000,
  });
  expect(failed.signal, failed.stderr).toBeNull();
  expect(failed.code, failed.stderr).toBe(1);
  expect(failed.stderr).toMatch(/delivery (dlv_\w+) \w+ \(HTTP 500/);
  expect(failed.stderr).toMatch(/plugin output \(\d+ lines?\):/);
  expect(failed.stderr).toContain('cannot reply to');
  // No reply was printed: stdout has nothing, not an empty reply a script would read.
  expect(failed.stdout).toBe('');
  const deliveryId = /delivery (dlv_\w+)/.exec(failed.stderr)![1];
  expect(failed.stderr).toContain(`\`plugsmith logs ${deliveryId}\``);

  // --json: the failure is one NDJSON line on stdout, with the attempt's output.
  const json = await runCli(
    ['chat', characterId, '-m', 'boom again', '--json', '--timeout', '60'],
    {
      cwd: dir,
      env,
      timeoutMs: 50_000,
    },
  );
  expect(json.code, json.stderr).toBe(1);
  const lines = json.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  const last = lines.at(-1);
  expect(last).toMatchObject({
    type: 'DELIVERY_FAILED',
    delivery: { id: expect.stringMatching(/^dlv_/) },
    attempt: { number: 1, responseStatus: 500 },
    logsCommand: expect.stringMatching(/^plugsmith logs dlv_/),
  });
  expect(last.attempt.pluginOutput.map((l: { text: string }) => l.text).join('\n')).toContain(
    'cannot reply to',
  );

  // The plugin answers 200 and writes nothing: after --timeout, the explanation, exit 7.
  const silent = await runCli(['chat', characterId, '-m', 'stay quiet', '--timeout', '2'], {
    cwd: dir,
    env,
    timeoutMs: 50_000,
  });
  expect(silent.signal, silent.stderr).toBeNull();
  expect(silent.code, silent.stderr).toBe(7);
  expect(silent.stdout).toBe('');
  expect(silent.stderr).toMatch(
    /the plugin accepted the event but wrote no message in conversation conv_\w+ within 2s: delivery dlv_\w+ \(HTTP 200\)/,
  );

  // trigger shows the plugin's output of the failed attempt too, in text and in --json.
  const trigger = await runCli(
    ['trigger', 'AGENT_MESSAGE_RECEIVED', '--set', 'message.content="boom by trigger"'],
    { cwd: dir, env, timeoutMs: 50_000 },
  );
  expect(trigger.code, trigger.stderr).toBe(1);
  expect(trigger.stdout).toMatch(/HTTP 500/);
  expect(trigger.stdout).toMatch(/plugin output \(\d+ lines?\):/);
  expect(trigger.stdout).toContain('cannot reply to');
  const triggered = await runCli(
    ['trigger', 'AGENT_MESSAGE_RECEIVED', '--set', 'message.content="boom again"', '--json'],
    { cwd: dir, env, timeoutMs: 50_000 },
  );
  expect(triggered.code, triggered.stderr).toBe(1);
  const result = JSON.parse(triggered.stdout);
  expect(
    result.delivery.attempts[0].pluginOutput.map((l: { text: string }) => l.text).join('\n'),
  ).toContain('cannot reply to');
  await dev.stop('SIGTERM');
});
