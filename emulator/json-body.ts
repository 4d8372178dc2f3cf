import type { FastifyInstance } from 'fastify';
import { badRequest, detail } from './errors.js';

/**
 * Parses a JSON request body as both APIs take it: an empty body is no body (so a DELETE sent
 * with `content-type: application/json` and nothing else is fine), a syntax error is a 400 that
 * says where, and a `__proto__` or `constructor.prototype` key is a 400 naming its path, since
 * such keys would poison objects the body is merged into.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw badRequest(`Body is not valid JSON: ${reason}`, [detail([], 'invalid_json', 'a JSON document', text.slice(0, 200), reason)]);
  }
  // Only a body that spells one of the keys can hold it: most bodies skip the walk.
  if (text.includes('__proto__') || text.includes('constructor')) {
    const path = forbiddenKeyPath(value);
    if (path) {
      const joined = path.join('.');
      const where = joined.length > 200 ? `…${joined.slice(-200)}` : joined;
      throw badRequest(`Body has the key ${where}, which is not accepted (it would reach object prototypes); rename it`, [
        detail(path, 'forbidden_key', 'no __proto__ or constructor.prototype key', where, `${where} is not accepted`),
      ]);
    }
  }
  return value;
}

/** A value met while walking a body, with the way back to the root (paths are built only when needed). */
interface Visit {
  value: unknown;
  key: string;
  parent: Visit | null;
}

/** The path of the first `__proto__` or `constructor.prototype` key, walked without recursion (bodies may nest deeply). */
function forbiddenKeyPath(root: unknown): string[] | null {
  const stack: Visit[] = [{ value: root, key: '', parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], key: String(i), parent: visit });
      continue;
    }
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return pathOf(visit, [key]);
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return pathOf(visit, [key, 'prototype']);
      stack.push({ value: child, key, parent: visit });
    }
  }
  return null;
}

function pathOf(visit: Visit, tail: string[]): string[] {
  const reversed = [...tail].reverse();
  for (let at: Visit | null = visit; at && at.parent; at = at.parent) reversed.push(at.key);
  return reversed.reverse();
}

/** Replaces fastify's JSON body parser (which refuses an empty body and hides why a body was refused) with parseJsonBody. */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
