import { describe, expect, test } from 'vitest';
import { until } from './index.js';

describe("the kit's until", () => {
  test('resolves with the first value that is there, probing again meanwhile', async () => {
    let calls = 0;
    const value = await until('the third call', () => (++calls === 3 ? { calls } : undefined), {
      intervalMs: 1,
    });
    expect(value).toEqual({ calls: 3 });
  });

  test('treats false and null as not yet, and a probe that throws as not yet', async () => {
    const answers: unknown[] = [false, null, new Error('not listening'), 0];
    const value = await until(
      'a number',
      () => {
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next as number | false | null;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(0);
    expect(answers).toEqual([]);
  });

  test('names what it waited for, the last answer and the explanation when it gives up', async () => {
    await expect(
      until('the plugin', () => false, {
        timeoutMs: 20,
        intervalMs: 5,
        explain: () => 'dev said: boom',
      }),
    ).rejects.toThrow(
      /timed out after 20 ms waiting for the plugin \(last: false\)\ndev said: boom/,
    );
    await expect(
      until(
        'a port',
        () => {
          throw new Error('ECONNREFUSED');
        },
        5,
      ),
    ).rejects.toThrow('waiting for a port (the last probe threw: ECONNREFUSED)');
  });
});
