import type { ConversationRecord, Db, MessageRecord } from '../model.js';
import type { StoreDeps } from '../context.js';

/**
 * What messaging's store writes need: the store and its collections. Each change is one journal line: a user's
 * message and its conversation's `updatedAt` stand or fall together.
 */
export type ConversationStore = StoreDeps;

/** Stores a new conversation. */
export async function createConversation(
  target: ConversationStore,
  conversation: ConversationRecord,
): Promise<ConversationRecord> {
  await target.db.conversations.put(conversation);
  return conversation;
}

/** The conversation as stored now (or as given, when it is gone) with `updatedAt` moved to `at`. */
function touched(db: Db, conversation: ConversationRecord, at: string): ConversationRecord {
  return { ...(db.conversations.get(conversation.id) ?? conversation), updatedAt: at };
}

/** Stores a user's message and moves its conversation's `updatedAt`, as one journal line. */
export async function addUserMessage(
  target: ConversationStore,
  conversation: ConversationRecord,
  message: MessageRecord,
): Promise<void> {
  await target.store.atomically(() => {
    void target.db.messages.put(message);
    void target.db.conversations.put(touched(target.db, conversation, message.updatedAt));
  });
}

/** Moves a conversation's `updatedAt` (a reply ended in it). */
export async function touchConversation(
  target: ConversationStore,
  conversation: ConversationRecord,
  at: string,
): Promise<void> {
  await target.db.conversations.put(touched(target.db, conversation, at));
}

/** Stores a reply's message: in memory at once (listings never see an older one), journalled in call order (the final lands last). */
export function saveReplyMessage(target: ConversationStore, message: MessageRecord): Promise<void> {
  return target.db.messages.put(message);
}

/** Ends, in one journal line, the given replies that were streaming when the emulator last stopped. */
export async function finishMessages(
  target: ConversationStore,
  messages: MessageRecord[],
): Promise<void> {
  if (messages.length === 0) return;
  await target.store.atomically(() => {
    for (const message of messages) void target.db.messages.put(message);
  });
}
