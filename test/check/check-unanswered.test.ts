import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { expect, onTestFinished, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { deadUrl } from '../kit/index.js';
import { generateWebhookSecret } from '../../src/shared/webhooks/signing.js';

// `plugsmith check` against a webhook where nothing listens (the plugin is not running): one failure, the challenge,
// whose fix is to start the server; every other check is skipped without sending anything, each saying why, instead of
// eleven failures each with a fix about signatures, replays or queues.

interface Report {
  ok: boolean;
  summary: { passed: number; failed: number; skipped: number };
  latency: { requests: number; p50Ms: number | null };
  checks: Array<{ id: string; status: string; received: string; fix: string | null }>;
}

test('a webhook that does not answer fails the challenge alone, names the fix once, and skips the rest', async () => {
  const url = `${await deadUrl()}/webhook`;
  const secret = generateWebhookSecret();
  const json = await runCli(['check', url, '--secret', secret, '--json']);
  expect(json.code, json.stderr).toBe(1);
  const report = JSON.parse(json.stdout) as Report;
  expect(report.ok).toBe(false);
  const [challenge, ...rest] = report.checks;
  expect(challenge).toMatchObject({ id: 'challenge', status: 'failed' });
  expect(challenge.fix).toBe(
    `start the webhook server at ${url} (\`plugsmith dev\` starts the plugin), then run check again`,
  );
  // The cause, said once.
  expect(challenge.received).toMatch(
    /^connection refused by http:\/\/127\.0\.0\.1:\d+: is the webhook server running\?$/,
  );
  expect(rest.length).toBeGreaterThan(5);
  for (const check of rest) {
    expect(check.status, check.id).toBe('skipped');
    expect(check.fix, check.id).toBe(
      `not run: the webhook did not answer the challenge (${challenge.received})`,
    );
  }
  expect(report.summary).toEqual({ passed: 0, failed: 1, skipped: rest.length });
  expect(report.latency).toMatchObject({ requests: 0, p50Ms: null });
  // --json: stderr points at the report's field, not at text that is not there.
  expect(json.stderr).toContain("1 check failed: challenge (each one's fix is in its `fix`)");

  const text = await runCli(['check', url, '--secret', secret]);
  expect(text.code).toBe(1);
  expect(text.stdout).toContain(`fix:       start the webhook server at ${url}`);
  expect(text.stdout).not.toMatch(/^FAIL\s+(?!challenge\b)\S/m);
  // The reason the others were not run, said once for all of them.
  expect(text.stdout.match(/not run: the webhook did not answer the challenge/g)).toHaveLength(1);
  expect(text.stderr).toContain("1 check failed: challenge (each one's fix is above)");
});

test('a webhook that takes the connection and drops it is sent the challenge alone', async () => {
  // Accepts each connection and closes it at once: no HTTP answer, and every request it was sent is counted.
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  const run = await runCli(['check', url, '--secret', generateWebhookSecret(), '--json']);
  expect(run.code, run.stderr).toBe(1);
  const report = JSON.parse(run.stdout) as Report;
  expect(report.checks[0]).toMatchObject({ id: 'challenge', status: 'failed' });
  expect(report.checks.slice(1).every((c) => c.status === 'skipped')).toBe(true);
  expect(connections).toBe(1);
});
