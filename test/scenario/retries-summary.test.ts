import { expect, test } from 'vitest';
import { type RetriedDelivery, retriesSummary } from '../../src/scenario/retries.js';

// The closing line of a run about its retried deliveries: a delivery that a retry brought through "needed a retry"; one
// that never got a 2xx (exhausted after every attempt, or still pending) is not said to have needed one.

const retried = (status: string, answers: string[]): RetriedDelivery => ({
  deliveryId: `dlv_${status}_${answers.length}`,
  type: 'AGENT_MESSAGE_RECEIVED',
  step: 1,
  answers,
  status,
});

test('retried deliveries are told apart by whether a retry brought them through', () => {
  expect(retriesSummary([])).toBe('');
  expect(retriesSummary([retried('delivered', ['HTTP 500', 'HTTP 200'])])).toBe(
    '1 delivery needed a retry',
  );
  expect(
    retriesSummary([
      retried('delivered', ['HTTP 500', 'HTTP 200']),
      retried('delivered', ['no answer (timeout)', 'HTTP 200']),
      retried('exhausted', Array(6).fill('HTTP 500')),
    ]),
  ).toBe('2 deliveries needed a retry; 1 delivery got no 2xx in any attempt yet (exhausted)');
  expect(
    retriesSummary([
      retried('exhausted', Array(6).fill('HTTP 500')),
      retried('pending', ['HTTP 500']),
    ]),
  ).toBe('2 deliveries got no 2xx in any attempt yet (exhausted, pending)');
});
