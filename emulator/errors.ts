import { ERROR_STATUS, type ErrorDetail, type ErrorType } from '../src/shared/contract/index.js';

export { ERROR_STATUS, type ErrorDetail, type ErrorType };

/** An error that becomes `{ ok: false, error: { message, error, details? } }` with its status. */
export class ApiError extends Error {
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
  new ApiError('VALIDATION_ERROR', message, details);
export const unauthorized = (message = 'A valid token is required in the Authorization header') =>
  new ApiError('UNAUTHORIZED', message);
export const forbidden = (message: string) => new ApiError('FORBIDDEN', message);
export const notFound = (what: string, id?: string) =>
  new ApiError('NOT_FOUND', id === undefined ? `${what} not found` : `${what} ${id} not found`);
export const conflict = (message: string) => new ApiError('CONFLICT', message);

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
