import { ReplyEngineError, type ReplyEngineErrorCode } from './errors.js';
import { createOpenAiEngine, type OpenAiEngineOptions } from './openai.js';
import { scriptedEngine } from './scripted.js';
import type { Character, ReplyEngine } from './types.js';

export type { Character, ChatTurn, ReplyEngine, ReplyRequest } from './types.js';
export { ReplyEngineError, type ReplyEngineErrorCode } from './errors.js';
export {
  DEFAULT_FALLBACK_REPLY,
  DEFAULT_PACKET_SIZE,
  scriptedEngine,
  scriptedReplyText,
  validateScript,
} from './scripted.js';
export { createOpenAiEngine, type OpenAiEngineOptions } from './openai.js';

/** Picks the engine that answers for a character. Never throws: a missing engine fails its replies instead. */
export type EngineFor = (character: Character) => ReplyEngine;

/** Picks each character's engine, scripted or (with `llm`) openai; any other fails its replies saying why. Throws on a non-http(s) baseUrl. */
export function createReplyEngines(config: { llm?: OpenAiEngineOptions } = {}): EngineFor {
  const openai = config.llm ? createOpenAiEngine(config.llm) : undefined;
  return (character) => {
    const engine = character.engine ?? 'scripted';
    if (engine === 'scripted') return scriptedEngine;
    if (engine === 'openai' && openai) return openai;
    const who = `character ${character.name} (${character.id})`;
    if (engine === 'openai') {
      const hint =
        'start it with --llm-base-url (e.g. http://127.0.0.1:11434/v1 for Ollama) and a model';
      return failingEngine(
        'NOT_CONFIGURED',
        `${who} uses the openai engine, but the emulator has no LLM backend; ${hint}`,
      );
    }
    if (engine === 'plugin')
      return failingEngine(
        'NOT_CONFIGURED',
        `${who} uses the plugin engine, which this emulator does not run`,
      );
    return failingEngine(
      'UNSUPPORTED_ENGINE',
      `${who} names an unknown engine "${String(engine)}"; use scripted, openai or plugin`,
    );
  };
}

function failingEngine(code: ReplyEngineErrorCode, message: string): ReplyEngine {
  return {
    // biome-ignore lint/correctness/useYield: an engine that fails at its first step still has to be a generator
    async *reply() {
      throw new ReplyEngineError(code, message);
    },
  };
}
