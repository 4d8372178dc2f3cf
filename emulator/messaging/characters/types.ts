import type { CharacterEngine, Sender } from '../../../src/contract/index.js';

/** A character as the reply engines see it (the store's CharacterRecord fits this shape). */
export interface Character {
  id: string;
  orgId: string;
  agentId?: string | null;
  name: string;
  /** System prompt for LLM-backed characters; "You are {name}." when absent. */
  persona?: string;
  /** Which engine answers; `scripted` when absent. */
  engine?: CharacterEngine;
  /** Scripted replies: `match` is a case-insensitive regular expression; the first match wins. */
  script?: ScriptLine[];
  fallbackReply?: string;
  /** Code points per packet of a scripted reply. */
  packetSize?: number;
  /** Pause between packets of a scripted reply; 0 sends them back to back. */
  packetIntervalMs?: number;
}

/** One line of a character's script. */
export interface ScriptLine {
  match: string;
  reply: string;
}

/** One earlier message of the conversation, oldest first. */
export interface ChatTurn {
  sender: Sender;
  content: string;
}

/** What an engine needs to answer. `history` holds the turns before `userMessage`, not it. */
export interface ReplyRequest {
  character: Character;
  history: ChatTurn[];
  userMessage: string;
  signal?: AbortSignal;
}

/**
 * Produces a character's TEXT reply as content deltas (packets), none empty; their
 * concatenation is the complete message. Failures end the iteration with a ReplyEngineError.
 */
export interface ReplyEngine {
  reply(req: ReplyRequest): AsyncIterable<string>;
}
