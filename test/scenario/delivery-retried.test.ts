import { expect, test } from 'vitest';
import { runScenario } from '../../src/emulator-entry.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';

// `"delivery": { "retried": true }` is checked: a real plugin on a port refuses (500) the first attempt
// of every message holding "flaky" and answers the rest at once, against a real emulator. A step whose
// delivery needed a retry passes `retried: true`, its `status` judging the answer after the retry;
// a step answered at once fails it, saying no retry was needed; without `retried: true`, `status`
// still judges the first answer.

async function flakyPlugin() {
  const { emu, client } = await emulatorAndClient();
  const { pluginId } = await serveEchoPlugin(emu, client, {
    name: 'flaky on request',
    answer: (text, { attempt }) => {
      // The webhook handler answers a throwing handler 500.
      if (text.includes('flaky') && attempt === 1) throw new Error('not ready yet');
      return `You said: ${text}`;
    },
  });
  return { client, pluginId };
}

/** A scenario of one message, with one `delivery` expectation. */
function oneMessage(text: string, delivery: Record<string, unknown>) {
  return {
    name: `${text}: ${JSON.stringify(delivery).replaceAll(',', ' and ')}`,
    steps: [
      { install: { on: 'agent', id: 'agent_nova' } },
      { id: 'conv', conversation: { agent: 'agent_nova' } },
      {
        message: { conversation: '${conv.id}', text },
        expect: [
          { reply: { text: `You said: ${text}` } },
          { delivery: { type: 'AGENT_MESSAGE_RECEIVED', ...delivery } },
        ],
      },
    ],
  };
}

test('retried: true passes on a delivery the plugin refused once (status judging the answer after the retry), and fails on one taken at once', async () => {
  const { client, pluginId } = await flakyPlugin();
  const run = (text: string, delivery: Record<string, unknown>) =>
    runScenario(oneMessage(text, delivery) as never, { client, pluginId });

  const recovered = await run('flaky one', { retried: true });
  expect(recovered.ok, JSON.stringify(recovered, null, 2)).toBe(true);
  expect(recovered.retried).toEqual([
    expect.objectContaining({ type: 'AGENT_MESSAGE_RECEIVED', answers: ['HTTP 500', 'HTTP 200'] }),
  ]);
  // The answer after the retry is a 200, not a 500.
  const wrongEnd = await run('flaky two', { retried: true, status: 500 });
  expect(wrongEnd.ok).toBe(false);
  expect(wrongEnd.steps[2].failures).toEqual([
    expect.objectContaining({
      expected: 'AGENT_MESSAGE_RECEIVED answered 500 after its retries',
      observed: 'HTTP 200: {"ok":true}',
    }),
  ]);

  const atOnce = await run('steady', { retried: true });
  expect(atOnce.ok).toBe(false);
  expect(atOnce.steps[2].failures).toEqual([
    expect.objectContaining({
      expected: 'AGENT_MESSAGE_RECEIVED retried (a first answer other than 2xx)',
      observed: 'answered HTTP 200: no retry was needed',
    }),
  ]);

  const firstJudged = await run('flaky three', { retried: false });
  expect(firstJudged.ok).toBe(false);
  expect(firstJudged.steps[2].failures).toEqual([
    expect.objectContaining({
      expected: 'AGENT_MESSAGE_RECEIVED answered 2xx',
      observed: expect.stringMatching(/^HTTP 500/),
    }),
  ]);
});
