/** What part of a delivery failed verification, for callers that branch on it. */
export type WebhookVerificationFailure =
  | 'MISSING_HEADER'
  | 'INVALID_HEADER'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'NO_MATCHING_SIGNATURE'
  | 'INVALID_PAYLOAD';

/** Thrown when a webhook delivery is not authentic, is stale, or is not a JSON event. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';

  constructor(
    readonly code: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}
