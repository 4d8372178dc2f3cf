import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import {
  startEventHandler,
  type EventHandler,
  type EventHandlerKind,
} from '../kit/event-handlers.js';

// `plugsmith check`, spawned as a process, against receivers written for the test (real HTTP
// servers, see test/kit/event-handlers.ts), each an EVENT_HANDLER installed on an agent of a real emulator so
// that the side-effect checks can count the messages it writes.

const t = useCliEnv();
const receivers = new Map<EventHandlerKind, { receiver: EventHandler; pluginId: string }>();

const ALL_CHECKS = [
  'challenge',
  'valid-delivery',
  'missing-signature',
  'wrong-signature',
  'tampered-body',
  'replayed-timestamp',
  'future-timestamp',
  'rotated-signatures',
  'duplicate-delivery',
  'unknown-event',
  'uninstall-without-install',
  'no-secret-echo',
  'answer-time',
];

async function installed(
  kind: EventHandlerKind,
): Promise<{ receiver: EventHandler; pluginId: string }> {
  const receiver = await startEventHandler(kind, t.emu.url);
  const plugin = await t.api.plugins.createInOrg(ORG, {
    name: `${kind} receiver`,
    type: 'EVENT_HANDLER',
    webhookUrl: receiver.url,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  receiver.secret = String(plugin.webhookSecret);
  const verified = await t.api.plugins.verifyWebhook(plugin.id);
  expect(verified.verified, JSON.stringify(verified)).toBe(true);
  const instance = await t.api.agentPlugins.install('agent_nova', {
    name: kind,
    pluginId: plugin.id,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    inputs: {},
  });
  await t.emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: instance.id });
  return { receiver, pluginId: plugin.id };
}

beforeAll(async () => {
  for (const kind of ['correct', 'careless', 'slow', 'double-writes'] as const)
    receivers.set(kind, await installed(kind));
});
afterAll(async () => {
  for (const { receiver } of receivers.values()) await receiver.close();
});

async function check(kind: EventHandlerKind, extra: string[] = []) {
  const { receiver, pluginId } = receivers.get(kind)!;
  const run = await t.cli(['check', receiver.url, '--plugin', pluginId, '--json', ...extra]);
  let report: any;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    throw new Error(`no JSON report (exit ${run.code}): ${run.stderr}`);
  }
  const failed = report.checks
    .filter((c: { status: string }) => c.status === 'failed')
    .map((c: { id: string }) => c.id);
  return { run, report, failed };
}

describe('plugsmith check against test receivers', () => {
  test('a correct receiver passes every check, exit 0, with answer times reported', async () => {
    const { run, report, failed } = await check('correct');
    expect(failed, JSON.stringify(report.checks, null, 2)).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.checks.map((c: { id: string }) => c.id)).toEqual(ALL_CHECKS);
    expect(report.checks.every((c: { status: string }) => c.status === 'passed')).toBe(true);
    expect(report).toMatchObject({
      ok: true,
      pluginType: 'EVENT_HANDLER',
      summary: { passed: ALL_CHECKS.length, failed: 0, skipped: 0 },
    });
    expect(report.latency).toMatchObject({ requests: 32, concurrency: 16, timeoutMs: 10_000 });
    expect(report.latency.p50Ms).toBeLessThanOrEqual(report.latency.p99Ms);
  });

  test('the careless receiver (no verification, no idempotency, echoes events) fails exactly the checks it should, each with a fix', async () => {
    const { run, report, failed } = await check('careless');
    expect(run.code).toBe(1);
    expect(failed).toEqual([
      'missing-signature',
      'wrong-signature',
      'tampered-body',
      'replayed-timestamp',
      'future-timestamp',
      'duplicate-delivery',
      'no-secret-echo',
    ]);
    const byId = Object.fromEntries(report.checks.map((c: { id: string }) => [c.id, c]));
    expect(byId['missing-signature'].received).toMatch(/^HTTP 200 .*; wrote 1 message$/);
    expect(byId['missing-signature'].fix).toMatch(/createWebhookHandler/);
    expect(byId['duplicate-delivery'].received).toMatch(/wrote 2 messages$/);
    expect(byId['no-secret-echo'].received).toMatch(/installation token/);
    expect(byId['no-secret-echo'].received).not.toMatch(/pit_check_/);
    for (const id of failed) expect(byId[id].fix, id).toBeTruthy();
    expect(run.stderr).toMatch(/7 checks failed: missing-signature, wrong-signature/);
  });

  test('a receiver that does the work again for a duplicate fails only the duplicate check', async () => {
    const { report, failed } = await check('double-writes');
    expect(failed).toEqual(['duplicate-delivery']);
    expect(report.checks.find((c: { id: string }) => c.id === 'duplicate-delivery').fix).toMatch(
      /same webhook-id/,
    );
  });

  test('a receiver that serialises slow work fails only the answer-time check under the burst', async () => {
    const { report, failed } = await check('slow', ['--delivery-timeout', '1']);
    expect(failed).toEqual(['answer-time']);
    expect(report.latency.timeoutMs).toBe(1000);
    expect(report.checks.find((c: { id: string }) => c.id === 'answer-time').received).toMatch(
      /not within 1000 ms/,
    );
  });

  test('the human report: a table of every check, then each failure with what was sent, what came back and the fix', async () => {
    const { receiver, pluginId } = receivers.get('double-writes')!;
    const run = await t.cli(['check', receiver.url, '--plugin', pluginId]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^result +check +sent +came back$/m);
    for (const id of ALL_CHECKS)
      expect(run.stdout).toMatch(new RegExp(`^(pass|FAIL) +${id} `, 'm'));
    expect(run.stdout).toMatch(
      /^FAIL duplicate-delivery: answers a duplicate delivery.*\n {2}sent: .*\n {2}came back: .*wrote 2 messages\n {2}fix: +the platform retries/m,
    );
    expect(run.stdout).toMatch(
      /^not ready: 12 passed, 1 failed, 0 skipped in [\d.]+ s; answer times over 32 requests: p50 \d+ ms, p99 \d+ ms$/m,
    );
  });

  test('with only a URL and --secret (no platform), the side-effect checks are skipped with the reason and the rest still judge', async () => {
    const { receiver } = receivers.get('correct')!;
    const bare = { PLUGSMITH_BASE_URL: '', PLUGSMITH_TOKEN: '' };
    const run = await t.cli(['check', receiver.url, '--secret', receiver.secret, '--json'], bare);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    const skipped = report.checks.filter((c: { status: string }) => c.status === 'skipped');
    expect(skipped.map((c: { id: string }) => c.id)).toEqual([
      'valid-delivery',
      'duplicate-delivery',
    ]);
    expect(skipped[0].fix).toMatch(/plugsmith login --local/);
    expect(report.summary).toEqual({ passed: 11, failed: 0, skipped: 2 });

    const careless = receivers.get('careless')!.receiver;
    const loose = JSON.parse(
      (await t.cli(['check', careless.url, '--secret', receiver.secret, '--json'], bare)).stdout,
    );
    expect(
      loose.checks
        .filter((c: { status: string }) => c.status === 'failed')
        .map((c: { id: string }) => c.id),
    ).toEqual([
      'missing-signature',
      'wrong-signature',
      'tampered-body',
      'replayed-timestamp',
      'future-timestamp',
      'no-secret-echo',
    ]);
  });

  test('bad input: no secret, a malformed secret, a bad URL, a bad --delivery-timeout are usage errors naming the fix', async () => {
    const bare = { PLUGSMITH_BASE_URL: '', PLUGSMITH_TOKEN: '' };
    const noSecret = await t.cli(['check', 'http://127.0.0.1:9/webhook'], bare);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(
      /pass --secret - \(the plugin's webhookSecret on stdin\) or set PLUGSMITH_WEBHOOK_SECRET/,
    );
    const badSecret = await t.cli(
      ['check', 'http://127.0.0.1:9/webhook', '--secret', 'whsec_!!'],
      bare,
    );
    expect(badSecret.code).toBe(2);
    expect(badSecret.stderr).toMatch(/--secret: invalid webhook secret/);
    // On the command line it works, with a warning: stdin and the variable keep it out of the process list.
    expect(badSecret.stderr).toContain('prefer --secret - (stdin) or PLUGSMITH_WEBHOOK_SECRET');
    const [fromStdin, fromEnv] = await Promise.all([
      t.cli(['check', 'http://127.0.0.1:9/webhook', '--secret', '-'], bare, 'whsec_!!\n'),
      t.cli(['check', 'http://127.0.0.1:9/webhook'], {
        ...bare,
        PLUGSMITH_WEBHOOK_SECRET: 'whsec_!!',
      }),
    ]);
    for (const run of [fromStdin, fromEnv]) {
      // The secret read (the same malformed one) is the one checked; no warning for either way.
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/--secret: invalid webhook secret/);
      expect(run.stderr).not.toContain('shell history');
    }
    const badUrl = await t.cli(['check', 'localhost:3000', '--secret', 'whsec_AAAA'], bare);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/must be http\(s\)/);
    const badTimeout = await t.cli(
      ['check', 'http://127.0.0.1:9/webhook', '--delivery-timeout', 'soon'],
      bare,
    );
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toMatch(/--delivery-timeout takes seconds/);
  });
});
