// plugsmith/webhooks: what a plugin needs to receive the platform's events, and what the
// emulator uses to send them. Every export of these modules is public (of headers.ts, the type only).

export * from './events.js';
export * from './signing.js';
export * from './errors.js';
export type { WebhookRequestHeaders } from './headers.js';
export * from './challenge.js';
export * from './handler.js';
