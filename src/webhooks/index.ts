// plugsmith/webhooks: what a plugin needs to receive the platform's events, and what the
// emulator uses to send them.

export * from './events.js';
export {
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  type SignWebhookInput,
  type VerifyWebhookOptions,
  type WebhookBody,
  type WebhookHeaders,
} from './signing.js';
export { WebhookVerificationError, type WebhookVerificationFailure } from './errors.js';
export type { WebhookRequestHeaders } from './headers.js';
export { answerChallenge, challengeAnswerProblem, type ChallengeAnswer } from './challenge.js';
export {
  createWebhookHandler,
  handleWebhook,
  type NodeWebhookHandlerOptions,
  type WebhookHandlerOptions,
  type WebhookHandlerResult,
  type WebhookHandlers,
  type WebhookIncomingMessage,
  type WebhookResponse,
} from './handler.js';
