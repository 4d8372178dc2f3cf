import { describe, expect, it } from 'vitest';
import {
  createReplyEngines,
  scriptedEngine,
  ReplyEngineError,
  type Character,
} from '../../../../emulator/messaging/characters/index.js';
import { collect, collectFailure, expectPacketsWellFormed } from './collect.js';
import { chunkEvent, startLlmServer, startStream } from './llm-server.js';

const base: Character = {
  id: 'char_x',
  orgId: 'org_acme',
  name: 'Nova',
  script: [{ match: 'hi', reply: 'Hello from {{name}}.' }],
  packetIntervalMs: 0,
};
const ask = (character: Character) => ({ character, history: [], userMessage: 'hi' });

describe('createReplyEngines', () => {
  it('answers with the scripted engine by default', async () => {
    const engineFor = createReplyEngines();
    expect(engineFor(base)).toBe(scriptedEngine);
    expect(engineFor({ ...base, engine: 'scripted' })).toBe(scriptedEngine);
    const packets = await collect(engineFor(base).reply(ask(base)));
    expect(packets.join('')).toBe('Hello from Nova.');
    expectPacketsWellFormed(packets);
  });

  it('answers with the LLM backend for openai characters when one is configured', {
    timeout: 5_000,
  }, async () => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.end(chunkEvent('From ') + chunkEvent('the model.') + 'data: [DONE]\n\n');
    });
    const engineFor = createReplyEngines({ llm: { baseUrl: llm.baseUrl, model: 'm' } });
    const character = { ...base, engine: 'openai' as const };
    expect(engineFor(character)).toBe(engineFor(character));
    expect(await collect(engineFor(character).reply(ask(character)))).toEqual([
      'From ',
      'the model.',
    ]);
    expect(llm.requests).toHaveLength(1);
  });

  it('fails the replies of an openai character, naming --llm-base-url, when no LLM is configured', async () => {
    const character = { ...base, engine: 'openai' as const };
    const engine = createReplyEngines()(character);
    const { error } = await collectFailure(engine.reply(ask(character)), 'NOT_CONFIGURED');
    expect(error.message).toMatch(
      /character Nova \(char_x\) uses the openai engine.*--llm-base-url/,
    );
    // Each reply fails afresh.
    await collectFailure(engine.reply(ask(character)), 'NOT_CONFIGURED');
  });

  it("fails the replies of a plugin character (the agent's webhook answers them, not an engine)", async () => {
    const character = { ...base, engine: 'plugin' as const };
    await collectFailure(createReplyEngines()(character).reply(ask(character)), 'NOT_CONFIGURED');
  });

  it('fails the replies of a character naming an unknown engine', async () => {
    const character = { ...base, engine: 'gpt' } as unknown as Character;
    const { error } = await collectFailure(
      createReplyEngines()(character).reply(ask(character)),
      'UNSUPPORTED_ENGINE',
    );
    expect(error.message).toMatch(/unknown engine "gpt"/);
  });

  it('refuses an LLM base URL that is not a URL at once', () => {
    expect(() => createReplyEngines({ llm: { baseUrl: '11434', model: 'm' } })).toThrow(
      ReplyEngineError,
    );
  });
});
