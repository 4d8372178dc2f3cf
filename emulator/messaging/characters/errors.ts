/** Why a reply could not be produced; lets callers word the failure without parsing messages. */
export type ReplyEngineErrorCode =
  | 'NOT_CONFIGURED' // the character needs an engine the emulator was not started with
  | 'UNSUPPORTED_ENGINE' // the character names an engine that does not exist
  | 'UNREACHABLE' // no connection to the LLM backend
  | 'HTTP_STATUS' // the backend answered with a non-2xx status
  | 'BAD_STREAM' // the backend's answer could not be understood
  | 'BACKEND_ERROR' // the backend reported an error inside its stream
  | 'DISCONNECTED' // the stream ended before the reply was complete
  | 'TIMEOUT' // the backend went silent for longer than the timeout
  | 'ABORTED'; // the caller's AbortSignal fired

/** The one error type every reply engine ends a failed reply with. */
export class ReplyEngineError extends Error {
  override readonly name = 'ReplyEngineError';
  /** The backend's HTTP status, for HTTP_STATUS errors. */
  readonly status: number | undefined;
  constructor(
    readonly code: ReplyEngineErrorCode,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
  }
}

/** The error to end a reply with once `signal` has fired. */
export function abortedError(signal: AbortSignal): ReplyEngineError {
  return new ReplyEngineError('ABORTED', 'the reply was cancelled', { cause: signal.reason });
}
