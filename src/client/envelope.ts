import { ApiError, type ApiErrorType, type ErrorDetail } from './errors.js';
import type { Meta } from './types.js';
import { ERROR_TYPE_BY_STATUS } from '#contract/enum-values';

/** What a successful response unwraps to. */
export interface Unwrapped<T> {
  data: T;
  meta?: Meta;
}

interface ResponseContext {
  status: number;
  contentType: string | undefined;
  text: string;
  method: string;
  url: string;
}

const BODY_KEEP = 2000;

/** Turns a response into `{ data, meta }` or throws the ApiError it describes. */
export function unwrap<T>(response: ResponseContext): Unwrapped<T> {
  const { status, method, url } = response;
  const parsed = parseJsonOr(response.text, NOT_JSON);
  const success = status >= 200 && status < 300;

  if (success) {
    if (response.text.trim() === '') return { data: undefined as T };
    if (parsed === NOT_JSON) {
      throw new ApiError({
        status,
        type: 'INVALID_RESPONSE',
        message: `${method} ${url} answered ${status} with ${response.contentType ?? 'a body'} that is not JSON; is the base URL right?`,
        method,
        url,
        body: response.text.slice(0, BODY_KEEP),
      });
    }
    if (isRecord(parsed) && parsed.ok === true) {
      return {
        data: parsed.data as T,
        meta: isRecord(parsed.meta) ? (parsed.meta as Meta) : undefined,
      };
    }
    if (isRecord(parsed) && parsed.ok === false) return throwEnvelope(parsed, response);
    // A server without the envelope: pass its body through rather than lose it.
    return { data: parsed as T };
  }

  if (isRecord(parsed) && isRecord(parsed.error)) return throwEnvelope(parsed, response);
  throw new ApiError({
    status,
    type: fallbackType(status),
    message: `${method} ${url} failed with HTTP ${status}${snippet(response.text, response.contentType)}`,
    method,
    url,
    body: response.text === '' ? undefined : response.text.slice(0, BODY_KEEP),
  });
}

function throwEnvelope(parsed: Record<string, unknown>, response: ResponseContext): never {
  const error = isRecord(parsed.error) ? parsed.error : {};
  const { status, method, url } = response;
  const type =
    typeof error.error === 'string' && error.error !== '' ? error.error : fallbackType(status);
  const message =
    typeof error.message === 'string' && error.message !== ''
      ? error.message
      : `HTTP ${status} ${type}`;
  const details = Array.isArray(error.details)
    ? error.details.filter(isRecord).map(toDetail)
    : undefined;
  throw new ApiError({ status, type, message, details, method, url });
}

function toDetail(entry: Record<string, unknown>): ErrorDetail {
  return {
    ...entry,
    code: String(entry.code ?? ''),
    expected: String(entry.expected ?? ''),
    received: String(entry.received ?? ''),
    path: Array.isArray(entry.path) ? entry.path.map(String) : [],
    message: String(entry.message ?? ''),
  };
}

function fallbackType(status: number): ApiErrorType {
  return ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'SERVER_ERROR' : 'HTTP_ERROR');
}

/** A short hint of a non-envelope body: plain text is shown, HTML only named. */
function snippet(text: string, contentType: string | undefined): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  if (/html/i.test(contentType ?? '') || trimmed.startsWith('<')) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.trim();
    return title
      ? ` (an HTML page: "${title}"; a proxy or the wrong URL?)`
      : ' (an HTML page; a proxy or the wrong URL?)';
  }
  const firstLine = trimmed.split(/\r?\n/, 1)[0];
  return `: ${firstLine.length > 200 ? firstLine.slice(0, 200) + '…' : firstLine}`;
}

const NOT_JSON = Symbol('not json');

/** `text` parsed as JSON, else `fallback` (an empty text is not JSON either). */
export function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
