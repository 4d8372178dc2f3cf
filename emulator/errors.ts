import { ERROR_STATUS, type ErrorDetail, type ErrorType } from '#contract';

export { ERROR_STATUS, type ErrorDetail, type ErrorType };

/**
 * An error the emulator answers with: it becomes `{ ok: false, error: { message, error, details? } }` with its status.
 * (The client's `ApiError`, in src/client/errors.ts, is the other side: an error answer the client received.)
 */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.status = ERROR_STATUS[type];
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new HttpError('VALIDATION_ERROR', message, details);
export const unauthorized = (message = 'A valid token is required in the Authorization header') =>
  new HttpError('UNAUTHORIZED', message);
export const forbidden = (message: string) => new HttpError('FORBIDDEN', message);
export const notFound = (what: string, id?: string) =>
  new HttpError('NOT_FOUND', id === undefined ? `${what} not found` : `${what} ${id} not found`);
export const conflict = (message: string) => new HttpError('CONFLICT', message);

/** An unexpected error as the emulator's log tells it: its name and message, then its stack. */
export function errorForLog(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const stack = error.stack ? `\n${error.stack}` : '';
  return `${error.name}: ${error.message}${stack}`;
}

/** The record, or a 404 naming what was looked for. */
export function found<T>(record: T | null | undefined, what: string, id: string): T {
  if (!record) throw notFound(what, id);
  return record;
}

/** A detail entry for one bad value. */
export function detail(
  path: string[],
  code: string,
  expected: string,
  received: unknown,
  message: string,
): ErrorDetail {
  return { code, expected, received: describe(received), path, message };
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value.length > 200 ? value.slice(0, 200) + '…' : value;
  try {
    const s = JSON.stringify(value);
    return s.length > 200 ? s.slice(0, 200) + '…' : s;
  } catch {
    return typeof value;
  }
}
