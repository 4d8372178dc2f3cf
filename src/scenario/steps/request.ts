import { ApiError, type PlatformClient } from '../../client/index.js';

/** Whether a request path goes to the emulator's admin API (`/_emulator`, percent-encoded or not). */
export function isAdminPath(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Left as written: the path check of the step names a malformed escape.
  }
  return /^\/+_emulator(?:[/?#]|$)/i.test(decoded);
}

// The generic `request` step: one request to any path of the platform's management or messaging
// API, as a Stripe fixture makes one. Its answer is the step's result: `status`, `data` (the
// envelope's), `meta` and, when an error status was expected, `error` (the error type); later
// steps name its fields by path, `${plug.data.id}`, `${list.data.0.id}`, `${list.meta.pagination.total}`.

export const REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The result fields of a request step; `data` and `meta` also by path below them (`data.id`). */
export const REQUEST_RESULTS = ['status', 'data', 'meta', 'error'];

/** Whether `field` names something of a request step's result: one of its fields, or a path under `data` or `meta`. */
export function isRequestResultField(field: string): boolean {
  return REQUEST_RESULTS.includes(field) || /^(?:data|meta)\.[^.]+(?:\.[^.]+)*$/.test(field);
}

/**
 * What is wrong with a request path, or null: it is a path of the platform's APIs, not a URL (no scheme or host), starts with
 * `/`, has no `.` or `..` segment (encoded or not), no query or fragment (the query goes in `query`), no backslash, space or
 * control character; on a remote platform, nothing under `/_emulator`. Checked as written and again once its references
 * are expanded.
 */
export function requestPathProblem(path: string, remote: boolean): string | null {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path) || path.startsWith('//'))
    return 'a request names a path of the platform, not a URL: no scheme or host (the target gives them)';
  if (!path.startsWith('/')) return 'a request path starts with "/" (e.g. "/api/plugins")';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is refused
  if (/[\s\\\u0000-\u001f\u007f]/.test(path))
    return 'a request path has no space, backslash or control character';
  if (/[?#]/.test(path))
    return 'a request path has no "?" or "#": give the query as "query": { … }';
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return 'a request path has a malformed percent escape';
  }
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.'))
    return 'a request path has no "." or ".." segment';
  if (remote && isAdminPath(path))
    return "/_emulator is the emulator's admin API: a remote platform has none";
  return null;
}

/** A request step's query as pairs: a list gives the name once per value. */
function queryPairs(query: unknown): Array<[string, string]> {
  if (!query || typeof query !== 'object') return [];
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([name, String(item)]);
  }
  return pairs;
}

/** Sends a request step (its references expanded) and returns its result; a status other than the expected one throws. */
export async function sendRequest(
  client: PlatformClient,
  body: Record<string, unknown>,
  remote: boolean,
): Promise<Record<string, unknown>> {
  const path = String(body.path);
  const problem = requestPathProblem(path, remote);
  if (problem) throw new Error(`${problem}: ${JSON.stringify(path)}`);
  const api = body.api === 'messaging' ? 'messaging' : 'management';
  const method = String(body.method);
  const expected = body.status ?? '2xx';
  const fits = (status: number) =>
    expected === '2xx' ? status >= 200 && status < 300 : status === expected;
  try {
    const answer = await client.request(api, method, path, {
      query: queryPairs(body.query),
      ...(body.body !== undefined ? { body: body.body } : {}),
    });
    if (!fits(answer.status))
      throw new Error(`${method} ${path} answered ${answer.status}, not ${String(expected)}`);
    return {
      status: answer.status,
      data: answer.data ?? null,
      meta: answer.meta ?? null,
      error: null,
    };
  } catch (error) {
    if (error instanceof ApiError && fits(error.status))
      return { status: error.status, data: null, meta: null, error: error.type };
    if (error instanceof ApiError)
      throw new Error(
        `${method} ${path} answered ${error.status} (${error.type}: ${error.message}), not ${String(expected)}`,
      );
    throw error;
  }
}

/** A field of a step's result by path (`data.items.0.id`); an error naming what is there when the path leads nowhere. */
export function resultField(step: string, result: Record<string, unknown>, field: string): unknown {
  if (Object.hasOwn(result, field)) return result[field];
  let value: unknown = result;
  for (const key of field.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key))
      throw new Error(
        `step "${step}"'s result has no ${field}${value !== null && typeof value === 'object' ? ` (at ${key}: fields ${Object.keys(value).join(', ') || 'none'})` : ''}`,
      );
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
