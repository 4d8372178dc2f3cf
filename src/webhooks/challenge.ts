import type { WebhookChallengeEvent } from './events.js';

/** The JSON body a plugin answers a WEBHOOK_CHALLENGE with, which verifies its webhook URL. */
export function answerChallenge(event: Pick<WebhookChallengeEvent, 'data'>): { challenge: string } {
  return { challenge: event.data.challenge };
}
