import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FALLBACK_REPLY,
  DEFAULT_PACKET_SIZE,
  scriptedEngine,
  scriptedReplyText,
  validateScript,
  type Character,
} from '../../../../emulator/messaging/characters/index.js';
import { collect, collectFailure, expectPacketsWellFormed } from './collect.js';

const nova: Character = {
  id: 'char_nova',
  orgId: 'org_acme',
  name: 'Nova',
  script: [
    { match: '\\b(hello|hi)\\b', reply: 'Hi there, I am {{name}}!' },
    { match: 'weather', reply: 'Sunny.' },
    { match: 'hello weather', reply: 'never reached: an earlier line matches first' },
  ],
  fallbackReply: 'Tell me more.',
  packetIntervalMs: 0,
};

const reply = (character: Character, userMessage: string) =>
  collect(scriptedEngine.reply({ character, history: [], userMessage }));

describe('scriptedReplyText', () => {
  it('matches case-insensitively', () => {
    expect(scriptedReplyText(nova, 'HELLO Nova')).toBe('Hi there, I am Nova!');
    expect(scriptedReplyText(nova, 'what is the WeAtHeR like')).toBe('Sunny.');
  });

  it('uses the first matching line', () => {
    expect(scriptedReplyText(nova, 'hello weather')).toBe('Hi there, I am Nova!');
  });

  it('falls back to fallbackReply, then to the default', () => {
    expect(scriptedReplyText(nova, 'shellfish')).toBe('Tell me more.');
    expect(scriptedReplyText({ ...nova, fallbackReply: undefined }, 'shellfish')).toBe(
      DEFAULT_FALLBACK_REPLY,
    );
    expect(scriptedReplyText({ id: 'c', orgId: 'o', name: 'Bare' }, 'anything')).toBe(
      DEFAULT_FALLBACK_REPLY,
    );
  });

  it('matches an invalid regular expression as a literal substring instead of crashing', () => {
    const odd: Character = {
      ...nova,
      script: [
        { match: 'price (usd', reply: 'Ten dollars.' },
        { match: '[', reply: 'A bracket.' },
      ],
    };
    expect(scriptedReplyText(odd, 'What is the PRICE (USD)?')).toBe('Ten dollars.');
    expect(scriptedReplyText(odd, 'a [ here')).toBe('A bracket.');
    expect(scriptedReplyText(odd, 'nothing')).toBe('Tell me more.');
  });

  it('survives records that are not shaped as typed', () => {
    const broken = { ...nova, script: 'oops', fallbackReply: 42 } as unknown as Character;
    expect(scriptedReplyText(broken, 'hello')).toBe(DEFAULT_FALLBACK_REPLY);
    const holes = {
      ...nova,
      script: [null, { match: 1, reply: 'x' }, { match: 'hi', reply: 'Yes.' }],
    } as unknown as Character;
    expect(scriptedReplyText(holes, 'hi')).toBe('Yes.');
  });
});

describe('validateScript', () => {
  it('accepts a good script and no script', () => {
    expect(validateScript(nova.script)).toEqual([]);
    expect(validateScript(undefined)).toEqual([]);
  });

  it('names the path of every bad line', () => {
    const problems = validateScript(
      [
        { match: 'ok', reply: 'fine' },
        { match: '(unclosed', reply: 'x' },
        { match: 'a', reply: 3 },
        null,
      ],
      ['characters', '2', 'script'],
    );
    expect(problems.map((p) => p.path.join('.'))).toEqual([
      'characters.2.script.1.match',
      'characters.2.script.2.reply',
      'characters.2.script.3',
    ]);
    expect(problems[0].message).toMatch(/not a valid regular expression/);
    expect(validateScript({})).toEqual([
      { path: [], message: 'must be an array of { match, reply }' },
    ]);
  });
});

describe('scriptedEngine', () => {
  it('streams the reply in packets of packetSize code points, deterministically', async () => {
    const character = { ...nova, packetSize: 5 };
    const packets = await reply(character, 'hi');
    expect(packets.join('')).toBe('Hi there, I am Nova!');
    expectPacketsWellFormed(packets);
    expect(packets.slice(0, -1).every((p) => [...p].length === 5)).toBe(true);
    expect([...packets.at(-1)!].length).toBeLessThanOrEqual(5);
    expect(await reply(character, 'hi')).toEqual(packets);
  });

  it('uses the default packet size when none or a nonsense one is set', async () => {
    for (const packetSize of [undefined, 0, -3, 2.5]) {
      const packets = await reply(
        { ...nova, packetSize, fallbackReply: 'x'.repeat(DEFAULT_PACKET_SIZE * 2 + 1) },
        'zzz',
      );
      expect(packets.map((p) => p.length)).toEqual([DEFAULT_PACKET_SIZE, DEFAULT_PACKET_SIZE, 1]);
    }
  });

  it('keeps emoji whole across packets', async () => {
    const packets = await reply({ ...nova, packetSize: 1, fallbackReply: '👋🏽 ok' }, 'zzz');
    expect(packets).toEqual(['👋', '🏽', ' ', 'o', 'k']);
  });

  it('sends nothing for an empty reply', async () => {
    expect(await reply({ ...nova, fallbackReply: '' }, 'zzz')).toEqual([]);
  });

  it('spaces packets by packetIntervalMs', async () => {
    const start = performance.now();
    const packets = await reply(
      { ...nova, packetSize: 1, packetIntervalMs: 25, fallbackReply: 'abcd' },
      'zzz',
    );
    expect(packets).toEqual(['a', 'b', 'c', 'd']);
    expect(performance.now() - start).toBeGreaterThanOrEqual(70);
  });

  it('stops with ABORTED when the signal fires', async () => {
    const controller = new AbortController();
    const stream = scriptedEngine.reply({
      character: { ...nova, packetSize: 1, packetIntervalMs: 5_000, fallbackReply: 'abc' },
      history: [],
      userMessage: 'zzz',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    const { packets } = await collectFailure(stream, 'ABORTED');
    expect(packets).toEqual(['a']);
  });
});
