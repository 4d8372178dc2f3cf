import type { Character as CharacterResource, Message } from '#contract';

/** A character as the reply engines see it: the contract's, without what they do not read. */
export type Character = Omit<CharacterResource, 'agentId' | 'createdAt' | 'updatedAt'>;

/** One earlier message of the conversation, oldest first. */
export type ChatTurn = Pick<Message, 'sender' | 'content'>;

/** What an engine needs to answer. `history` holds the turns before `userMessage`, not it. */
export interface ReplyRequest {
  character: Character;
  history: ChatTurn[];
  userMessage: string;
  signal?: AbortSignal;
}

/** Produces a character's TEXT reply as non-empty content deltas (packets); failures end the iteration with a ReplyEngineError. */
export type ReplyEngine = { reply(req: ReplyRequest): AsyncIterable<string> };
