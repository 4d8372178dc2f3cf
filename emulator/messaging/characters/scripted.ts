import { splitIntoPackets, streamWithInterval } from './packets.js';
import type { Character, ReplyEngine, ReplyRequest } from './types.js';
import {
  cachedCaseInsensitive,
  linearRegExpProblem,
  MatchBudgetError,
  withMatchBudget,
} from '../../validation/linear-regex.js';

/** Code points per packet when a character sets none. */
export const DEFAULT_PACKET_SIZE = 8;
/** Milliseconds between packets when a character sets none. */
export const DEFAULT_PACKET_INTERVAL_MS = 30;
/** The reply of a scripted character whose script has no match and no `fallbackReply`. */
export const DEFAULT_FALLBACK_REPLY = "I don't have a scripted reply for that.";

/** One thing wrong with a script, at a path relative to where the script sits. */
export type ScriptProblem = { path: string[]; message: string };

/** Lists what is wrong with a character's script (empty when it is fine); `at` prefixes every path, e.g. `['characters', '0', 'script']`. */
export function validateScript(script: unknown, at: string[] = []): ScriptProblem[] {
  if (script === undefined) return [];
  if (!Array.isArray(script))
    return [{ path: at, message: 'must be an array of { match, reply }' }];
  const problems: ScriptProblem[] = [];
  script.forEach((line: unknown, i) => {
    const here = [...at, String(i)];
    if (typeof line !== 'object' || line === null) {
      problems.push({ path: here, message: 'must be an object { match, reply }' });
      return;
    }
    const { match, reply } = line as Record<string, unknown>;
    if (typeof match !== 'string')
      problems.push({ path: [...here, 'match'], message: 'must be a string' });
    else {
      const error = linearRegExpProblem(match, 'i');
      if (error !== null)
        problems.push({
          path: [...here, 'match'],
          message: `is not a valid regular expression (${error})`,
        });
    }
    if (typeof reply !== 'string')
      problems.push({ path: [...here, 'reply'], message: 'must be a string' });
  });
  return problems;
}

/** The first matching line's reply (else the fallback), `{{name}}` filled; a bad `match` is a literal substring, so no record breaks a reply. */
export function scriptedReplyText(character: Character, userMessage: string): string {
  const script = Array.isArray(character.script) ? character.script : [];
  const line = withMatchBudget(() =>
    script.find((l) => typeof l?.match === 'string' && matches(l.match, userMessage)),
  );
  const fallback =
    typeof character.fallbackReply === 'string' ? character.fallbackReply : DEFAULT_FALLBACK_REPLY;
  const reply = typeof line?.reply === 'string' ? line.reply : fallback;
  return reply.replaceAll('{{name}}', character.name);
}

/** Answers from the character's script, in packets of `packetSize` every `packetIntervalMs`; deterministic. */
export const scriptedEngine: ReplyEngine = {
  reply(req: ReplyRequest): AsyncIterable<string> {
    const { character } = req;
    const size = positiveInteger(character.packetSize) ?? DEFAULT_PACKET_SIZE;
    const interval = nonNegative(character.packetIntervalMs) ?? DEFAULT_PACKET_INTERVAL_MS;
    return streamWithInterval(
      splitIntoPackets(scriptedReplyText(character, req.userMessage), size),
      interval,
      req.signal,
    );
  },
};

// Matched on RE2 (linear time), so no `match` can stall the process; one that would pass the reply's budget does not match.
function matches(pattern: string, text: string): boolean {
  const compiled = cachedCaseInsensitive(pattern);
  if (!compiled) return text.toLowerCase().includes(pattern.toLowerCase());
  try {
    return compiled.test(text);
  } catch (error) {
    if (error instanceof MatchBudgetError) return false;
    throw error;
  }
}

// Records may come from hand-written seeds or older data: nonsense sizes fall back to defaults.
function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined;
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
