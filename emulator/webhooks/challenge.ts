import { challengeAnswerProblem } from '../../src/webhooks/challenge.js';
import type { AttemptOutcome } from './attempt.js';

/**
 * Why a WEBHOOK_CHALLENGE answer does not verify the webhook, or null when it does: a 2xx
 * with JSON `{ "challenge": <value> }`, or a text/plain body that is exactly the value.
 */
export function challengeProblem(outcome: AttemptOutcome, challenge: string): string | null {
  if (outcome.status === null) return outcome.error ?? 'no answer';
  return challengeAnswerProblem({ status: outcome.status, contentType: String(outcome.headers['content-type'] ?? ''), body: outcome.body ?? '' }, challenge);
}
