import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { until } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { scenarioProject, setDevCommand } from '../kit/project.js';

// The plugin run by a watcher that outlives it (`node --watch`, as the TypeScript template's `tsx watch`): a delivery
// crashes it, the watcher waits for a change and no exit reaches dev. dev reported the crash (its preloaded hook), then
// never noticed the watcher start the plugin again after the fix was saved: no "the plugin is back", no verify, and the
// delivery's retries went on as they fell due ("connection refused" while it was down, the next one 30 s after the fix).
// Now dev holds the deliveries from the crash, waits for the plugin to answer again, says so and releases them.
//
// The Python template does not have this fault: its command (`python3 -m plugin`) is no watcher, dev's own `dev.watch`
// restarts it, and its exit reaches dev, which holds, restarts and says it is back (test/dev/closed-before-answer.test.ts
// runs that path). A Python process writes no crash report either (the hook is preloaded through NODE_OPTIONS).

const CRASHING_REPLY = `export async function replyTo(text) {
    if (text.includes('crash')) {
        setImmediate(() => { throw new Error('the reply crashed on ' + JSON.stringify(text)); });
        await new Promise(() => undefined);
    }
    return 'You said: ' + text;
}
`;

test('dev: a crash under a watcher that keeps running holds the deliveries, and says so when the plugin stays down; when the watcher starts the plugin again, dev says it is back and releases them', {
  timeout: 180_000,
}, async () => {
  const { dir, env } = await scenarioProject('typescript');
  await setDevCommand(dir, 'node --watch dist/main.js');
  const replyFile = join(dir, 'dist/reply.js');
  const fixedReply = await readFile(replyFile, 'utf8');
  await writeFile(replyFile, CRASHING_REPLY);
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/webhook`;
  const dev = spawnCli(
    [
      'dev',
      '--plugin-port',
      String(port),
      '--emulator-port',
      '0',
      '--messaging-port',
      '0',
      '--verify-timeout',
      '5',
    ],
    { cwd: dir, env },
  );
  await until('dev to be ready', () => dev.stderr().includes(`ready: `), {
    timeoutMs: 90_000,
    explain: () => dev.stderr(),
  });

  const triggered = await runCli(
    ['trigger', 'AGENT_MESSAGE_RECEIVED', '--set', 'message.content=please crash', '--json'],
    { cwd: dir, env },
  );
  expect(triggered.code, triggered.stderr).toBe(1);
  const deliveryId = JSON.parse(triggered.stdout).delivery.id as string;
  await until(
    'the crash report',
    () => /the plugin crashed: Error: the reply crashed/.test(dev.stderr()),
    {
      explain: () => dev.stderr(),
    },
  );
  expect(dev.stderr()).toMatch(/`node --watch dist\/main\.js` keeps running/);
  const readDelivery = async () => {
    const shown = await runCli(['logs', deliveryId, '--json'], { cwd: dir, env });
    return JSON.parse(shown.stdout);
  };
  // Its retry (due 1 s after) falls due while the plugin is down: set aside, no attempt spent.
  const held = await until(
    'the retry held',
    async () => {
      const read = await readDelivery();
      return read.heldSince ? read : undefined;
    },
    { timeoutMs: 15_000, explain: () => dev.stderr() },
  );

  // Down past the verify timeout: told once that its deliveries wait, and they still do.
  await until(
    'dev to say the deliveries wait',
    () =>
      dev
        .stderr()
        .includes(
          `the plugin has not answered at ${webhookUrl} for 5s since it crashed: its deliveries are held until it does`,
        ),
    { timeoutMs: 30_000, explain: () => dev.stderr() },
  );
  expect((await readDelivery()).status).toBe('pending');

  // The fix saved: the watcher starts the plugin again.
  await writeFile(replyFile, fixedReply);
  await until(
    'dev to say the plugin is back',
    () => dev.stderr().includes(`the plugin is back at ${webhookUrl}`),
    {
      timeoutMs: 30_000,
      explain: () => dev.stderr(),
    },
  );
  // What was held goes at once, without waiting for a retry's time.
  const delivery = await until(
    'the held delivery delivered',
    async () => {
      const read = await readDelivery();
      return read.status === 'delivered' ? read : undefined;
    },
    { timeoutMs: 15_000, explain: () => dev.stderr() },
  );
  const attempts = delivery.attempts as Array<{
    responseStatus: number | null;
    error: string | null;
  }>;
  // The attempt the plugin crashed on (it had the request: not "refused"); after the hold, only the one made once it was back.
  // (Before the hold, a loaded machine may see the crash late enough for the first retry to be refused: not counted here.)
  expect(attempts[0].responseStatus, JSON.stringify(attempts)).toBeNull();
  expect(attempts[0].error).not.toMatch(/connection refused/);
  expect(attempts.length, JSON.stringify(attempts)).toBe(held.attempts.length + 1);
  expect(attempts.at(-1)!.responseStatus).toBe(200);
  expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
});
