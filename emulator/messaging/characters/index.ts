import { ReplyEngineError } from './errors.js';
import { createOpenAiEngine, type OpenAiEngineOptions } from './openai.js';
import { scriptedEngine } from './scripted.js';
import type { Character, ReplyEngine } from './types.js';

export type { Character, ChatTurn, ReplyEngine, ReplyRequest } from './types.js';
export { ReplyEngineError, type ReplyEngineErrorCode } from './errors.js';
export { DEFAULT_FALLBACK_REPLY, DEFAULT_PACKET_SIZE, scriptedEngine, scriptedReplyText, validateScript } from './scripted.js';
export { createOpenAiEngine, type OpenAiEngineOptions } from './openai.js';

/** Picks the engine that answers for a character. Never throws: a missing engine fails its replies instead. */
export type EngineFor = (character: Character) => ReplyEngine;

/**
 * Builds the engine chooser: scripted unless the character says `openai` (with `llm`, the
 * `--llm-base-url` backend). A character whose engine is not configured, or not run here (`plugin`
 * characters are answered by their agent's webhook), gets an engine whose every reply ends at once
 * with a ReplyEngineError saying why. Throws (NOT_CONFIGURED) only if `llm.baseUrl` is not an http(s) URL.
 */
export function createReplyEngines(config: { llm?: OpenAiEngineOptions } = {}): EngineFor {
  const openai = config.llm ? createOpenAiEngine(config.llm) : undefined;
  return (character) => {
    const engine = character.engine ?? 'scripted';
    if (engine === 'scripted') return scriptedEngine;
    if (engine === 'openai') {
      return openai ?? failingEngine(() => new ReplyEngineError('NOT_CONFIGURED',
        `character ${character.name} (${character.id}) uses the openai engine, but the emulator has no LLM backend; ` +
          'start it with --llm-base-url (e.g. http://127.0.0.1:11434/v1 for Ollama) and a model'));
    }
    if (engine === 'plugin') {
      return failingEngine(() => new ReplyEngineError('NOT_CONFIGURED',
        `character ${character.name} (${character.id}) uses the plugin engine, which this emulator does not run`));
    }
    return failingEngine(() => new ReplyEngineError('UNSUPPORTED_ENGINE',
      `character ${character.name} (${character.id}) names an unknown engine "${String(engine)}"; use scripted, openai or plugin`));
  };
}

function failingEngine(error: () => ReplyEngineError): ReplyEngine {
  return {
    // eslint-disable-next-line require-yield
    async *reply() {
      throw error();
    },
  };
}
