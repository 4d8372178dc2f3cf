import type { Message } from '#contract/resources';

/** Oldest first; on the same instant a user's message before the reply to it. */
export function byTime(a: Message, b: Message): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return (a.sender === 'USER' ? 0 : 1) - (b.sender === 'USER' ? 0 : 1);
}

/**
 * Adds or replaces a message (a streaming reply arrives many times, growing), keeping the order:
 * a reply's first packet may arrive before the answer to the POST of the message it replies to.
 */
export function upsert(messages: Message[], message: Message): Message[] {
  const index = messages.findIndex((m) => m.id === message.id);
  if (index === -1) return [...messages, message].sort(byTime);
  const next = messages.slice();
  next[index] = message;
  return next;
}

/** What a conversation's entry says of its last message: who wrote it and its text (or what it carries instead). */
export function previewText(message: Message, characterName: string): string {
  const who = message.sender === 'USER' ? 'You' : characterName;
  const text = message.content.replace(/\s+/g, ' ').trim();
  const said =
    text !== ''
      ? text
      : message.attachments.length > 0
        ? `(${message.attachments.map((a) => a.type).join(', ')})`
        : message.error
          ? `(${message.error.code})`
          : message.isStreaming
            ? '(writing…)'
            : '(no text)';
  return `${who}: ${said}`;
}
