import type { AttemptOutcome } from './attempt.js';

/**
 * Why a WEBHOOK_CHALLENGE answer does not verify the webhook, or null when it does: a 2xx
 * with JSON `{ "challenge": <value> }`, or a text/plain body that is exactly the value.
 */
export function challengeProblem(outcome: AttemptOutcome, challenge: string): string | null {
  if (outcome.status === null) return outcome.error ?? 'no answer';
  if (outcome.status < 200 || outcome.status > 299) return `the webhook answered HTTP ${outcome.status}; it must answer 2xx with {"challenge": "<the value sent>"}`;
  const body = outcome.body ?? '';
  const contentType = String(outcome.headers['content-type'] ?? '').toLowerCase();
  if (contentType.startsWith('text/plain')) {
    return body === challenge ? null : `the text/plain answer is not exactly the challenge value sent`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `the answer is neither JSON {"challenge": "<value>"} nor a text/plain body with the value (content-type ${contentType || 'none'})`;
  }
  if (typeof parsed !== 'object' || parsed === null || !('challenge' in parsed)) {
    return 'the JSON answer has no "challenge" field: answer {"challenge": "<the value sent>"}';
  }
  return (parsed as { challenge: unknown }).challenge === challenge ? null : 'the "challenge" in the answer is not the value sent';
}
