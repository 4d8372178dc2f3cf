import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';

// A passing run says when retries happened: a real plugin on a port that answers 500 to the first
// attempt of the first two messages it is told and then answers each with what it was told, a real emulator, and
// `plugsmith scenario run` spawned against them. The runner makes the retry at once, so the
// scenario passes; the console and --json say which delivery needed it.

async function setUp() {
  const { emu, client } = await emulatorAndClient();
  /** How many messages it still answers 500: one for each of the first two runs. */
  let failures = 2;
  const { pluginId } = await serveEchoPlugin(emu, client, {
    name: 'flaky echo',
    answer: (text, { attempt }) => {
      // The first attempt of each of the first two messages; a retry of the same event is taken.
      if (failures > 0 && attempt === 1) {
        failures--;
        // The webhook handler answers a throwing handler 500.
        throw new Error('not ready yet');
      }
      return `You said: ${text}`;
    },
  });
  await client.agentPlugins.install('agent_nova', {
    name: 'flaky',
    pluginId,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    inputs: {},
  } as never);
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  const dir = await tempDir('plugsmith-retries-');
  const env = {
    PLUGSMITH_CONFIG_DIR: join(dir, '.config'),
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_API_KEY: emu.apiKey!,
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken!,
  };
  await writeFile(
    join(dir, 'chat.json'),
    JSON.stringify({
      name: 'a message is answered',
      steps: [
        { id: 'conv', conversation: { agent: 'agent_nova' } },
        {
          message: { conversation: '${conv.id}', text: 'hello' },
          expect: [{ reply: { text: 'You said: hello' } }],
        },
      ],
    }),
  );
  const run = (...extra: string[]) =>
    runCli(['scenario', 'run', 'chat.json', '--plugin', pluginId, ...extra], { cwd: dir, env });
  return { run, dir };
}

test('a run that passes after the plugin answered 500 once says which delivery needed a retry; the next run says nothing', async () => {
  const { run, dir } = await setUp();
  const first = await run('--junit', 'first.xml');
  expect(first.code, first.stdout + first.stderr).toBe(0);
  expect(first.stdout).toContain(
    '  passed, 1 delivery needed a retry (made at once; "delivery": { "retried": false } fails on it):',
  );
  expect(first.stdout).toMatch(
    / {6}step 2 \(message "hello"\): AGENT_MESSAGE_RECEIVED dlv_\w+: HTTP 500, then HTTP 200\n/,
  );
  expect(first.stdout).toMatch(/✓ 1 passed \([^)]+\); 1 delivery needed a retry\n/);
  // CI reads the same in the JUnit report, in the passing testcase's system-out.
  const junit = await readFile(join(dir, 'first.xml'), 'utf8');
  expect(junit).toMatch(
    /<testcase [^>]*>\s*<system-out>passed, 1 delivery needed a retry \(made at once;[^<]*step 2 \(message &quot;hello&quot;\): AGENT_MESSAGE_RECEIVED dlv_\w+: HTTP 500, then HTTP 200<\/system-out>/,
  );

  const json = await run('--json');
  expect(json.code, json.stderr).toBe(0);
  const report = JSON.parse(json.stdout) as {
    ok: boolean;
    scenarios: Array<{ ok: boolean; retried: unknown[] }>;
  };
  expect(report.ok).toBe(true);
  expect(report.scenarios[0].retried).toEqual([
    {
      deliveryId: expect.stringMatching(/^dlv_/),
      type: 'AGENT_MESSAGE_RECEIVED',
      step: 1,
      answers: ['HTTP 500', 'HTTP 200'],
      status: expect.any(String),
    },
  ]);

  // The plugin now takes every message at once: nothing to tell.
  const clean = await run('--json');
  expect(JSON.parse(clean.stdout).scenarios[0].retried).toEqual([]);
  const plain = await run('--junit', 'clean.xml');
  expect(plain.code).toBe(0);
  expect(plain.stdout).not.toContain('needed a retry');
  expect(await readFile(join(dir, 'clean.xml'), 'utf8')).not.toContain('system-out');
});
