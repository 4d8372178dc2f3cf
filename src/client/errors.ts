import type { ErrorDetail as ContractErrorDetail, ErrorType } from '#contract';

/** One entry of `error.details` (the contract's), keeping any field a remote platform adds. */
export type ErrorDetail = ContractErrorDetail & { [key: string]: unknown };

/** Error types the platform and the emulator use; other strings may come from elsewhere. */
export type ApiErrorType = ErrorType | 'HTTP_ERROR' | 'INVALID_RESPONSE' | (string & {});

/** The server answered, and the answer was an error (or not the JSON the client expected). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly type: ApiErrorType;
  readonly details: ErrorDetail[];
  readonly method: string;
  readonly url: string;
  /** The raw body when it was not an error envelope (HTML from a proxy, plain text…), truncated. */
  readonly body?: string;

  constructor(
    init: Pick<ApiError, 'status' | 'type' | 'message' | 'method' | 'url' | 'body'> & {
      details?: ErrorDetail[];
    },
  ) {
    super(init.message);
    this.status = init.status;
    this.type = init.type;
    this.details = init.details ?? [];
    this.method = init.method;
    this.url = init.url;
    this.body = init.body;
  }
}

/** The server could not be reached or did not answer in time: no HTTP status exists. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  /** The system or undici code: ECONNREFUSED, ENOTFOUND, ECONNRESET, UND_ERR_SOCKET, ETIMEDOUT… */
  readonly code: string;
  readonly method: string;
  readonly url: string;
  /** How many attempts were made before giving up. */
  readonly attempts: number;

  constructor(
    init: Pick<NetworkError, 'code' | 'method' | 'url'> & { cause?: unknown; attempts?: number },
  ) {
    super(`${init.method} ${init.url} failed: ${describeCode(init.code, init.cause)}`, {
      cause: init.cause,
    });
    this.code = init.code;
    this.method = init.method;
    this.url = init.url;
    this.attempts = init.attempts ?? 1;
  }
}

/** The system or undici code of a failure (its own, its cause's, or its first inner error's), else UNKNOWN. */
export function errorCode(error: unknown): string {
  const e = error as
    | { code?: unknown; cause?: { code?: unknown }; errors?: Array<{ code?: unknown }> }
    | undefined;
  const codes = [e?.code, e?.cause?.code, e?.errors?.[0]?.code];
  return codes.find((code): code is string => typeof code === 'string' && code !== '') ?? 'UNKNOWN';
}

/** True for an ApiError, optionally of one error type (`isApiError(e, 'NOT_FOUND')`). */
export function isApiError(error: unknown, type?: ApiErrorType): error is ApiError {
  return error instanceof ApiError && (type === undefined || error.type === type);
}

/** True for a NetworkError. */
export function isNetworkError(error: unknown): error is NetworkError {
  return error instanceof NetworkError;
}

const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed temporarily',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'timed out',
  UND_ERR_SOCKET: 'connection closed unexpectedly',
  UND_ERR_CONNECT_TIMEOUT: 'timed out while connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
};

function describeCode(code: string, cause: unknown): string {
  const text = CODE_TEXT[code];
  if (text !== undefined) return `${text} (${code})`;
  const message = cause instanceof Error ? cause.message : undefined;
  return message ? `${message} (${code})` : code;
}
