import type { Message } from '../../client/index.js';

/** One finished line of the conversation on screen: a message, or a notice for the person. */
export type ChatEntry =
  | { key: string; kind: 'message'; message: Message }
  | { key: string; kind: 'notice'; level: 'info' | 'warning' | 'error'; text: string };
