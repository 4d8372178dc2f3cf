import { expect, it } from 'vitest';
import { answerChallenge } from '../../src/shared/webhooks/index.js';
import { challenge } from './fixtures/events.js';

it('answers a challenge with the same value, as the JSON body the platform expects', () => {
  expect(JSON.stringify(answerChallenge(challenge))).toBe('{"challenge":"ch_4f1c2d"}');
});
