import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest, detail } from './errors.js';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Far above what any request of
 * either API needs (a plugin's JSON Schemas nest a few levels), and far below the depth at which
 * `JSON.stringify` (used by the store's journal) or a recursive walk would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Most items one JSON array in a body may hold. The validators report every problem (allErrors),
 * so an array far past its schema's maxItems was walked item by item before the 400: 200,000 items
 * (400 KB) held the emulator for seconds. No array of either API needs more than 1,000 (the largest
 * maxItems is 1,000, a character's script); the store import allows more with
 * `config: { maxJsonArrayItems }`.
 */
export const MAX_JSON_ARRAY_ITEMS = 1_000;

/**
 * Most keys one JSON object in a body may hold. The validators report every problem (allErrors), so
 * 60,000 unknown keys (0.9 MB) held the emulator for seconds and were answered with 60,001 details.
 * No object of either API needs more (a supplied schema holds at most MAX_SCHEMA_NODES values); the
 * store import allows more with `config: { maxJsonObjectKeys }`.
 */
export const MAX_JSON_OBJECT_KEYS = 1_000;

/**
 * Most keys and array items a JSON body may hold in all, whatever objects and arrays they are spread
 * over. The per-container caps left 141 objects of 999 unknown keys (140,000 keys, 984 KB) in one
 * `attachments` array, which held the emulator about 850 ms. No request of either API comes near
 * (a character's script of 1,000 lines is a few thousand); the store import allows more with
 * `config: { maxJsonValues }`.
 */
export const MAX_JSON_VALUES = 10_000;

/** The limits parseJsonBody applies. */
export interface JsonBodyLimits {
  maxDepth?: number;
  maxArrayItems?: number;
  maxObjectKeys?: number;
  maxValues?: number;
}

/**
 * Parses a JSON request body as both APIs take it: an empty body is no body (so a DELETE sent
 * with `content-type: application/json` and nothing else is fine), a syntax error is a 400 that
 * says where, a body nested deeper than MAX_JSON_DEPTH, an array longer than MAX_JSON_ARRAY_ITEMS or
 * an object with more than MAX_JSON_OBJECT_KEYS keys is a 400 naming the path, more than MAX_JSON_VALUES
 * keys and items in all is a 400 `too_many_values`, and a `__proto__` or
 * `constructor.prototype` key is a 400 naming its path, since such keys would poison objects the body
 * is merged into. Keys are checked as parsed (`"\u005f_proto__"` is `__proto__`), never in the text.
 */
export function parseJsonBody(text: string, limits: JsonBodyLimits | number = {}): unknown {
  const { maxDepth = MAX_JSON_DEPTH, maxArrayItems = MAX_JSON_ARRAY_ITEMS, maxObjectKeys = MAX_JSON_OBJECT_KEYS, maxValues = MAX_JSON_VALUES } = typeof limits === 'number' ? { maxDepth: limits } : limits;
  if (text.trim() === '') return undefined;
  // Counted in the text first: parsing 60,000 keys (0.9 MB) alone held the event loop 60 to 100 ms.
  const tooMany = firstOversizedContainer(text, maxDepth, maxArrayItems, maxObjectKeys, maxValues);
  if (tooMany) throw refusal(tooMany, maxDepth, maxArrayItems, maxObjectKeys, maxValues);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw badRequest(`Body is not valid JSON: ${reason}`, [detail([], 'invalid_json', 'a JSON document', text.slice(0, 200), reason)]);
  }
  const problem = firstProblem(value, maxDepth, maxArrayItems, maxObjectKeys);
  if (problem) throw refusal(problem, maxDepth, maxArrayItems, maxObjectKeys);
  return value;
}

/** A container open while scanning a body's text: its kind, how many items (or keys) so far, where its current key starts. */
interface Frame {
  object: boolean;
  count: number;
  keyAt: number;
}

/**
 * The first array longer than `maxArrayItems` or object with more than `maxObjectKeys` keys, the
 * item that takes the body past `maxValues` keys and items in all, or the first container nested
 * deeper than `maxDepth`, found
 * in the text before it is parsed: one pass that stops at the first item past a cap, no recursion,
 * strings skipped by indexOf (counts stay right whatever they hold). Text that is not JSON passes
 * here and fails at the parse. The path is built only for a refusal.
 */
function firstOversizedContainer(text: string, maxDepth: number, maxArrayItems: number, maxObjectKeys: number, maxValues: number): Problem | null {
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
        return { kind: top.object ? 'too_many_keys' : 'too_many_items', path: pathAt(text, frames.slice(0, -1)) };
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
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
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

/** What is wrong with a body, where; `items` counts an oversized container when it was counted whole. */
type Problem = { kind: 'too_deep' | 'forbidden_key' | 'too_many_items' | 'too_many_keys' | 'too_many_values'; path: string[]; items?: number };

/** "1200 keys" when the container was counted whole, "over 1000 keys" when counting stopped at the cap. */
function counted(problem: Problem, cap: number, noun: string): string {
  return problem.items === undefined ? `over ${cap} ${noun}` : `${problem.items} ${noun}`;
}

/** The 400 for a body's problem, naming its path. */
function refusal(problem: Problem, maxDepth: number, maxArrayItems: number, maxObjectKeys: number, maxValues = MAX_JSON_VALUES): ApiError {
  const joined = problem.path.join('.');
  const where = joined.length > 200 ? `…${joined.slice(-200)}` : joined;
  if (problem.kind === 'too_deep') {
    return badRequest(`Body nests objects and arrays deeper than ${maxDepth} levels (at ${where}); flatten it`, [
      detail(problem.path, 'too_deep', `at most ${maxDepth} levels of nesting`, `more than ${maxDepth} levels`, `${where} is nested deeper than ${maxDepth} levels`),
    ]);
  }
  if (problem.kind === 'too_many_items') {
    const at = where === '' ? 'the body' : where;
    return badRequest(`Body has an array of more than ${maxArrayItems} items (at ${at}); send fewer`, [
      detail(problem.path, 'too_many_items', `at most ${maxArrayItems} items in an array`, counted(problem, maxArrayItems, 'items'), `${at} holds ${counted(problem, maxArrayItems, 'items')}, more than the ${maxArrayItems} allowed`),
    ]);
  }
  if (problem.kind === 'too_many_keys') {
    const at = where === '' ? 'the body' : where;
    return badRequest(`Body has an object of more than ${maxObjectKeys} keys (at ${at}); send fewer`, [
      detail(problem.path, 'too_many_keys', `at most ${maxObjectKeys} keys in an object`, counted(problem, maxObjectKeys, 'keys'), `${at} holds ${counted(problem, maxObjectKeys, 'keys')}, more than the ${maxObjectKeys} allowed`),
    ]);
  }
  if (problem.kind === 'too_many_values') {
    return badRequest(`Body holds more than ${maxValues} keys and array items in all (the one past the limit is at ${where}); send fewer`, [
      detail(problem.path, 'too_many_values', `at most ${maxValues} keys and array items in a body`, `over ${maxValues}`, `the body holds more than ${maxValues} keys and array items in all; ${where} is past the limit`),
    ]);
  }
  return badRequest(`Body has the key ${where}, which is not accepted (it would reach object prototypes); rename it`, [
    detail(problem.path, 'forbidden_key', 'no __proto__ or constructor.prototype key', where, `${where} is not accepted`),
  ]);
}

/** A value met while walking a body, with its depth and the way back to the root (paths are built only when needed). */
interface Visit {
  value: unknown;
  key: string;
  depth: number;
  parent: Visit | null;
}

/**
 * The first container nested deeper than MAX_JSON_DEPTH, array longer than MAX_JSON_ARRAY_ITEMS,
 * object with more than MAX_JSON_OBJECT_KEYS keys, or `__proto__` or `constructor.prototype` key (as
 * parsed, whatever escapes spelled it); walked without recursion (bodies may nest deeply).
 */
function firstProblem(root: unknown, maxDepth: number, maxArrayItems: number, maxObjectKeys: number): Problem | null {
  const stack: Visit[] = [{ value: root, key: '', depth: 0, parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (value === null || typeof value !== 'object') continue;
    const depth = visit.depth + 1;
    if (depth > maxDepth) return { kind: 'too_deep', path: pathOf(visit, []) };
    if (Array.isArray(value)) {
      if (value.length > maxArrayItems) return { kind: 'too_many_items', path: pathOf(visit, []), items: value.length };
      for (let i = 0; i < value.length; i++) {
        if (value[i] !== null && typeof value[i] === 'object') stack.push({ value: value[i], key: String(i), depth, parent: visit });
      }
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > maxObjectKeys) return { kind: 'too_many_keys', path: pathOf(visit, []), items: keys.length };
    for (const key of keys) {
      const child = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return { kind: 'forbidden_key', path: pathOf(visit, [key]) };
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
        return { kind: 'forbidden_key', path: pathOf(visit, [key, 'prototype']) };
      }
      if (child !== null && typeof child === 'object') stack.push({ value: child, key, depth, parent: visit });
    }
  }
  return null;
}

function pathOf(visit: Visit, tail: string[]): string[] {
  const reversed = [...tail].reverse();
  for (let at: Visit | null = visit; at && at.parent; at = at.parent) reversed.push(at.key);
  return reversed.reverse();
}

/**
 * Replaces fastify's JSON body parser (which refuses an empty body and hides why a body was refused)
 * with parseJsonBody. A route may allow deeper bodies with `config: { maxJsonDepth }`, longer
 * arrays with `config: { maxJsonArrayItems }`, larger objects with `config: { maxJsonObjectKeys }` and
 * more keys and items in all with `config: { maxJsonValues }`
 * (the store import, whose records sit a few levels below the bodies they came from, in collections
 * of any size).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      const config = request.routeOptions.config as { maxJsonDepth?: number; maxJsonArrayItems?: number; maxJsonObjectKeys?: number; maxJsonValues?: number } | undefined;
      done(null, parseJsonBody(body as string, { maxDepth: config?.maxJsonDepth, maxArrayItems: config?.maxJsonArrayItems, maxObjectKeys: config?.maxJsonObjectKeys, maxValues: config?.maxJsonValues }));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
