import { challengeAnswerProblem } from '#shared/webhooks/challenge';
import type { AttemptOutcome } from './attempt.js';

/** Why a WEBHOOK_CHALLENGE answer does not verify the webhook, or null when it does (a 2xx echoing the value, as JSON or text). */
export function challengeProblem(outcome: AttemptOutcome, challenge: string): string | null {
  if (outcome.status === null) return outcome.error ?? 'no answer';
  return challengeAnswerProblem(
    {
      status: outcome.status,
      contentType: String(outcome.headers['content-type'] ?? ''),
      body: outcome.body ?? '',
    },
    challenge,
  );
}
