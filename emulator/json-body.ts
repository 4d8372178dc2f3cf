import type { FastifyInstance } from 'fastify';
import { badRequest, detail } from './errors.js';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Far above what any request of
 * either API needs (a plugin's JSON Schemas nest a few levels), and far below the depth at which
 * `JSON.stringify` (used by the store's journal) or a recursive walk would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Parses a JSON request body as both APIs take it: an empty body is no body (so a DELETE sent
 * with `content-type: application/json` and nothing else is fine), a syntax error is a 400 that
 * says where, a body nested deeper than MAX_JSON_DEPTH is a 400 naming the path where it goes too
 * deep, and a `__proto__` or `constructor.prototype` key is a 400 naming its path, since such keys
 * would poison objects the body is merged into.
 */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw badRequest(`Body is not valid JSON: ${reason}`, [detail([], 'invalid_json', 'a JSON document', text.slice(0, 200), reason)]);
  }
  // Only a body that spells one of the keys can hold it: most bodies skip the key checks.
  const problem = firstProblem(value, text.includes('__proto__') || text.includes('constructor'), maxDepth);
  if (problem) {
    const joined = problem.path.join('.');
    const where = joined.length > 200 ? `…${joined.slice(-200)}` : joined;
    if (problem.kind === 'too_deep') {
      throw badRequest(`Body nests objects and arrays deeper than ${maxDepth} levels (at ${where}); flatten it`, [
        detail(problem.path, 'too_deep', `at most ${maxDepth} levels of nesting`, `more than ${maxDepth} levels`, `${where} is nested deeper than ${maxDepth} levels`),
      ]);
    }
    throw badRequest(`Body has the key ${where}, which is not accepted (it would reach object prototypes); rename it`, [
      detail(problem.path, 'forbidden_key', 'no __proto__ or constructor.prototype key', where, `${where} is not accepted`),
    ]);
  }
  return value;
}

/** A value met while walking a body, with its depth and the way back to the root (paths are built only when needed). */
interface Visit {
  value: unknown;
  key: string;
  depth: number;
  parent: Visit | null;
}

/**
 * The first container nested deeper than MAX_JSON_DEPTH, or (when `checkKeys`) the first
 * `__proto__` or `constructor.prototype` key; walked without recursion (bodies may nest deeply).
 */
function firstProblem(root: unknown, checkKeys: boolean, maxDepth: number): { kind: 'too_deep' | 'forbidden_key'; path: string[] } | null {
  const stack: Visit[] = [{ value: root, key: '', depth: 0, parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (value === null || typeof value !== 'object') continue;
    const depth = visit.depth + 1;
    if (depth > maxDepth) return { kind: 'too_deep', path: pathOf(visit, []) };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (value[i] !== null && typeof value[i] === 'object') stack.push({ value: value[i], key: String(i), depth, parent: visit });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (checkKeys) {
        if (key === '__proto__') return { kind: 'forbidden_key', path: pathOf(visit, [key]) };
        if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
          return { kind: 'forbidden_key', path: pathOf(visit, [key, 'prototype']) };
        }
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
 * with parseJsonBody. A route may allow deeper bodies with `config: { maxJsonDepth }` (the store
 * import, whose records sit a few levels below the bodies they came from).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      const configured = (request.routeOptions.config as { maxJsonDepth?: number } | undefined)?.maxJsonDepth;
      done(null, parseJsonBody(body as string, configured ?? MAX_JSON_DEPTH));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
