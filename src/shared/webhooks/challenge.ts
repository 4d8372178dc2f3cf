import type { WebhookChallengeEvent } from './events.js';

/** The JSON body a plugin answers a WEBHOOK_CHALLENGE with, which verifies its webhook URL. */
export function answerChallenge(event: Pick<WebhookChallengeEvent, 'data'>): { challenge: string } {
  return { challenge: event.data.challenge };
}

/** A webhook's answer to a challenge, as far as judging it needs. */
export interface ChallengeAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Why an answer to a WEBHOOK_CHALLENGE does not verify the webhook (null when it does: a 2xx with JSON
 * `{ "challenge": <value> }`, or text/plain that is exactly the value); the emulator and `check` both judge with it.
 */
export function challengeAnswerProblem(answer: ChallengeAnswer, challenge: string): string | null {
  if (answer.status < 200 || answer.status > 299)
    return `the webhook answered HTTP ${answer.status}; it must answer 2xx with {"challenge": "<the value sent>"}`;
  const contentType = answer.contentType.toLowerCase();
  if (contentType.startsWith('text/plain')) {
    return answer.body === challenge
      ? null
      : `the text/plain answer is not exactly the challenge value sent`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `the answer is neither JSON {"challenge": "<value>"} nor a text/plain body with the value (content-type ${contentType || 'none'})`;
  }
  if (typeof parsed !== 'object' || parsed === null || !('challenge' in parsed)) {
    return 'the JSON answer has no "challenge" field: answer {"challenge": "<the value sent>"}';
  }
  return (parsed as { challenge: unknown }).challenge === challenge
    ? null
    : 'the "challenge" in the answer is not the value sent';
}
