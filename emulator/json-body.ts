import type { FastifyInstance } from 'fastify';
import { type HttpError, badRequest, detail } from './errors.js';

/** Deepest nesting of a JSON body: far above any request's needs, far below what would overflow the stack in JSON.stringify or a walk. */
export const MAX_JSON_DEPTH = 100;

/** Most items of one JSON array: validators report every problem, and 200,000 items held the emulator seconds (no API takes over 1,000). */
export const MAX_JSON_ARRAY_ITEMS = 1_000;

/** Most keys one JSON object in a body may hold: 60,000 unknown keys held the emulator for seconds. */
export const MAX_JSON_OBJECT_KEYS = 1_000;

/** Most keys and array items in all: 141 objects of 999 keys passed the per-container caps and held the emulator 850 ms. */
export const MAX_JSON_VALUES = 10_000;

/** The limits parseJsonBody applies; the store import raises them (route `config: { jsonLimits }`). */
export type JsonBodyLimits = Partial<
  Record<'maxDepth' | 'maxArrayItems' | 'maxObjectKeys' | 'maxValues', number>
>;

/**
 * Parses a JSON body: empty is no body (a DELETE with a JSON content-type); a syntax error, a body past a limit, or a `__proto__` or
 * `constructor.prototype` key (it would poison merges; checked as parsed, so `"\u005f_proto__"` too) is a 400 naming the path.
 */
export function parseJsonBody(text: string, limits: JsonBodyLimits = {}): unknown {
  const bounds: Required<JsonBodyLimits> = {
    maxDepth: MAX_JSON_DEPTH,
    maxArrayItems: MAX_JSON_ARRAY_ITEMS,
    maxObjectKeys: MAX_JSON_OBJECT_KEYS,
    maxValues: MAX_JSON_VALUES,
    ...limits,
  };
  if (text.trim() === '') return undefined;
  // Counted in the text first: parsing 60,000 keys (0.9 MB) alone held the event loop 60 to 100 ms.
  const tooMany = firstOversizedContainer(text, bounds);
  if (tooMany) throw refusal(tooMany, bounds);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw badRequest(`Body is not valid JSON: ${reason}`, [
      detail([], 'invalid_json', 'a JSON document', text.slice(0, 200), reason),
    ]);
  }
  const forbidden = mayHoldForbiddenKey(text) ? firstForbiddenKey(value) : null;
  if (forbidden) throw refusal(forbidden, bounds);
  return value;
}

/** A container open while scanning a body's text: its kind, how many items (or keys) so far, where its current key starts. */
type Frame = { object: boolean; count: number; keyAt: number };

/** The first container past a limit, from the text before parsing: one pass, no recursion, strings skipped whole; non-JSON fails later. */
function firstOversizedContainer(
  text: string,
  { maxDepth, maxArrayItems, maxObjectKeys, maxValues }: Required<JsonBodyLimits>,
): Problem | null {
  const frames: Frame[] = [];
  let expectItem = false;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x5d || c === 0x7d) {
      frames.pop();
      expectItem = false;
      continue;
    }
    if (c === 0x2c) {
      expectItem = true;
      continue;
    }
    const top = frames[frames.length - 1];
    if (expectItem && top) {
      top.count++;
      if (top.object) top.keyAt = i;
      if (top.count > (top.object ? maxObjectKeys : maxArrayItems)) {
        return {
          kind: top.object ? 'too_many_keys' : 'too_many_items',
          path: pathAt(text, frames.slice(0, -1)),
        };
      }
      if (++values > maxValues) return { kind: 'too_many_values', path: pathAt(text, frames) };
      expectItem = false;
    }
    if (c === 0x7b || c === 0x5b) {
      // Nesting past the limit is named as such (not as the values its brackets add up to).
      if (frames.length >= maxDepth) return { kind: 'too_deep', path: pathAt(text, frames) };
      frames.push({ object: c === 0x7b, count: 0, keyAt: -1 });
      expectItem = true;
    } else if (c === 0x22) {
      i = stringEnd(text, i);
    }
  }
  return null;
}

/** Where the string opened at `start` closes (its closing quote), or the text's end when it never does. */
function stringEnd(text: string, start: number): number {
  for (
    let quote = text.indexOf('"', start + 1);
    quote !== -1;
    quote = text.indexOf('"', quote + 1)
  ) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/** The path to the innermost of `frames`' current items: keys (parsed from the text) and array indexes. */
function pathAt(text: string, frames: Frame[]): string[] {
  return frames.map((frame) => {
    if (!frame.object) return String(frame.count - 1);
    const end = stringEnd(text, frame.keyAt);
    try {
      return String(JSON.parse(text.slice(frame.keyAt, end + 1)));
    } catch {
      return text.slice(frame.keyAt + 1, end);
    }
  });
}

/** What is wrong with a body, and where. */
type Problem = {
  kind: 'too_deep' | 'forbidden_key' | 'too_many_items' | 'too_many_keys' | 'too_many_values';
  path: string[];
};

/** The 400 for a body's problem, naming its path. */
function refusal(
  problem: Problem,
  { maxDepth, maxArrayItems, maxObjectKeys, maxValues }: Required<JsonBodyLimits>,
): HttpError {
  const joined = problem.path.join('.');
  const where = joined.length > 200 ? `…${joined.slice(-200)}` : joined;
  const at = where === '' ? 'the body' : where;
  if (problem.kind === 'too_deep') {
    return badRequest(
      `Body nests objects and arrays deeper than ${maxDepth} levels (at ${where}); flatten it`,
      [
        detail(
          problem.path,
          'too_deep',
          `at most ${maxDepth} levels of nesting`,
          `more than ${maxDepth} levels`,
          `${where} is nested deeper than ${maxDepth} levels`,
        ),
      ],
    );
  }
  if (problem.kind === 'too_many_items' || problem.kind === 'too_many_keys') {
    const [most, unit, container] =
      problem.kind === 'too_many_items'
        ? [maxArrayItems, 'items', 'an array']
        : [maxObjectKeys, 'keys', 'an object'];
    return badRequest(`Body has ${container} of more than ${most} ${unit} (at ${at}); send fewer`, [
      detail(
        problem.path,
        problem.kind,
        `at most ${most} ${unit} in ${container}`,
        `over ${most} ${unit}`,
        `${at} holds over ${most} ${unit}, more than the ${most} allowed`,
      ),
    ]);
  }
  if (problem.kind === 'too_many_values') {
    return badRequest(
      `Body holds more than ${maxValues} keys and array items in all (the one past the limit is at ${where}); send fewer`,
      [
        detail(
          problem.path,
          'too_many_values',
          `at most ${maxValues} keys and array items in a body`,
          `over ${maxValues}`,
          `the body holds more than ${maxValues} keys and array items in all; ${where} is past the limit`,
        ),
      ],
    );
  }
  return badRequest(
    `Body has the key ${where}, which is not accepted (it would reach object prototypes); rename it`,
    [
      detail(
        problem.path,
        'forbidden_key',
        'no __proto__ or constructor.prototype key',
        where,
        `${where} is not accepted`,
      ),
    ],
  );
}

/**
 * Whether the text can hold a `__proto__` or `constructor.prototype` key: it names them, or has a `\u` escape that could spell them.
 * Most bodies do not, and walking every value of a large one (an import of millions of records) costs seconds.
 */
function mayHoldForbiddenKey(text: string): boolean {
  if (text.includes('\\u')) return true;
  if (text.includes('__proto__')) return true;
  return text.includes('constructor') && text.includes('prototype');
}

/** A value met while walking a parsed body, with the way back to the root (paths are built only when needed). */
type Visit = { value: unknown; key: string; parent: Visit | null };

/** The first `__proto__` or `constructor.prototype` key of a parsed body; walked without recursion. */
function firstForbiddenKey(root: unknown): Problem | null {
  const stack: Visit[] = [{ value: root, key: '', parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      // Indices hold no forbidden key, and Object.entries of a 3,000,000-item array takes seconds: only its containers are walked.
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (child !== null && typeof child === 'object')
          stack.push({ value: child, key: String(i), parent: visit });
      }
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === '__proto__') return { kind: 'forbidden_key', path: pathOf(visit, [key]) };
      if (
        key === 'constructor' &&
        child !== null &&
        typeof child === 'object' &&
        Object.hasOwn(child, 'prototype')
      ) {
        return { kind: 'forbidden_key', path: pathOf(visit, [key, 'prototype']) };
      }
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, key, parent: visit });
    }
  }
  return null;
}

function pathOf(visit: Visit, tail: string[]): string[] {
  const reversed = [...tail].reverse();
  for (let at: Visit | null = visit; at?.parent; at = at.parent) reversed.push(at.key);
  return reversed.reverse();
}

/** fastify's JSON parser refuses empty bodies and hides why: use parseJsonBody (a route raises limits by `config: { jsonLimits }`). */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      const config = request.routeOptions.config as { jsonLimits?: JsonBodyLimits } | undefined;
      done(null, parseJsonBody(body as string, config?.jsonLimits));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
