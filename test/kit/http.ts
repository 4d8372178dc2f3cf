import { request } from 'undici';

/** A response as tests look at it: status, parsed JSON body (or the raw text), headers. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

/** What to send: a credential, a JSON body, query parameters, extra headers. */
export interface CallOptions {
  /** The raw `Authorization` value (`Bearer pst_…`, `Basic …`, or anything a test needs to send). */
  token?: string;
  /** A token or API key sent as `Authorization: Bearer <bearer>`; null or undefined sends none. */
  bearer?: string | null;
  /** Sent as JSON with `content-type: application/json`. */
  body?: unknown;
  /** Sent as it is (for malformed JSON and wrong content types); set the content type in `headers`. */
  rawBody?: string | Buffer;
  /** Repeated parameters as arrays: `{ tags: ['a', 'b'] }` gives `tags=a&tags=b`. */
  query?: Record<string, string | number | boolean | Array<string | number | boolean>>;
  headers?: Record<string, string>;
}

/** The query string of `query`, with a leading `?` (or empty). */
export function queryString(query: CallOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** One real HTTP request to `baseUrl + path` with undici. The body is parsed as JSON when it can be. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = options.token;
  else if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${baseUrl}${path}${queryString(options.query)}`, {
    method: method as 'GET',
    headers,
    body,
  });
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: keep the text so a test can show it.
  }
  return { status: response.statusCode, body: parsed, headers: response.headers };
}

/** One request to an emulator's admin API (`/_emulator/…`) with its admin credential (`x-plugsmith-admin`). */
export function adminCall(
  emu: { url: string; adminHeaders: Record<string, string> },
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  return call(emu.url, method, path, {
    ...options,
    headers: { ...emu.adminHeaders, ...options.headers },
  });
}
