import type { Static } from '@sinclair/typebox';
import { ApiError, type PlatformClient } from '../../client/index.js';
import type { RequestStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

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
 * control character, and nothing under `/_emulator`. Checked as written and again once its references are expanded.
 *
 * The admin API belongs to the person running the emulator and their tools, never to a scenario file, which a cloned
 * project brings: with its credential a scenario could read the whole store (`/_emulator/export`: every secret, token and
 * install's inputs) and hand it to a plugin of its own on any host, or reset the store. What a scenario needs of it, its
 * own steps do (`faults`, `trigger`, the waits of expectations).
 */
export function requestPathProblem(path: string): string | null {
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
  if (isAdminPath(path))
    return "/_emulator is the emulator's admin API, which a scenario's request does not reach (a remote platform has none): the scenario's own steps (faults, trigger) do what it needs of it";
  return null;
}

export type RequestStep = Static<typeof RequestStepSchema>;

export const requestStep: StepModule<'request'> = {
  label: (step) =>
    `request ${step.method} ${step.path}${step.api === 'messaging' ? ' (messaging)' : ''}`,
  run: (step, context) => sendRequest(context.client, step),
};

/** A request step's query as pairs: a list gives the name once per value. */
function queryPairs(query: RequestStep['query']): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([name, String(item)]);
  }
  return pairs;
}

/** Sends a request step (its references expanded) and returns its result; a status other than the expected one throws. */
export async function sendRequest(
  client: PlatformClient,
  step: RequestStep,
): Promise<Record<string, unknown>> {
  const { path, method } = step;
  const problem = requestPathProblem(path);
  if (problem) throw new Error(`${problem}: ${JSON.stringify(path)}`);
  const api = step.api === 'messaging' ? 'messaging' : 'management';
  const expected = step.status ?? '2xx';
  const fits = (status: number) =>
    expected === '2xx' ? status >= 200 && status < 300 : status === expected;
  try {
    const answer = await client.request(api, method, path, {
      query: queryPairs(step.query),
      ...(step.body !== undefined ? { body: step.body } : {}),
    });
    if (!fits(answer.status))
      throw new Error(`${method} ${path} answered ${answer.status}, not ${expected}`);
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
        `${method} ${path} answered ${error.status} (${error.type}: ${error.message}), not ${expected}`,
      );
    throw error;
  }
}
