import { expect, test } from 'vitest';
import { SecretWatch } from '../../src/dev/secret-watch.js';
import { until } from '../kit/index.js';

// dev's look at the plugin's secret after a refused delivery (src/dev/secret-watch.ts), with the platform's answer in
// the test's hands: one read at a time, none within a second of the last, a restart only for a secret that changed,
// and nothing once stopped.

function watch(platformSecret: () => Promise<string>) {
  const seen = { reads: 0, restarts: [] as string[], warnings: [] as string[] };
  let started = 'whsec_old';
  const secretWatch = new SecretWatch({
    current: async () => {
      seen.reads++;
      return platformSecret();
    },
    started: () => started,
    restartWith: async (secret) => {
      started = secret;
      seen.restarts.push(secret);
    },
    warn: (message) => seen.warnings.push(message),
  });
  return { secretWatch, seen };
}

test('a 401 reads the secret once for a burst of refusals, and restarts the plugin only when it changed', async () => {
  let answer: (secret: string) => void = () => undefined;
  const { secretWatch, seen } = watch(() => new Promise<string>((resolve) => (answer = resolve)));
  secretWatch.answered(200);
  secretWatch.answered(500);
  expect(seen.reads).toBe(0);
  secretWatch.answered(401);
  secretWatch.answered(403);
  secretWatch.answered(401);
  expect(seen.reads).toBe(1);
  answer('whsec_new');
  await until('the restart with the new secret', () => seen.restarts.length === 1);
  expect(seen.restarts).toEqual(['whsec_new']);
  // Within a second of the last read: not read again.
  secretWatch.answered(401);
  expect(seen.reads).toBe(1);
  await secretWatch.stop();
});

test('a read that fails is told; a watch stopped during a read restarts nothing, and reads no more', async () => {
  const failing = watch(async () => {
    throw new Error('the emulator is gone');
  });
  failing.secretWatch.answered(401);
  await failing.secretWatch.stop();
  expect(failing.seen.warnings).toEqual([
    "could not read the plugin's webhook secret: the emulator is gone",
  ]);

  let answer: (secret: string) => void = () => undefined;
  const { secretWatch, seen } = watch(() => new Promise<string>((resolve) => (answer = resolve)));
  secretWatch.answered(401);
  const stopped = secretWatch.stop();
  answer('whsec_new');
  await stopped;
  expect(seen.restarts).toEqual([]);
  secretWatch.answered(401);
  expect(seen.reads).toBe(1);
});
