import type { IncomingMessage } from 'node:http';

/** A request whose body a framework may already have read. */
export type WebhookIncomingMessage = IncomingMessage & { rawBody?: unknown; body?: unknown };

/** Why the raw body could not be had; `status` is what to answer. */
export class RawBodyError extends Error {
  constructor(
    readonly status: 413 | 500,
    message: string,
  ) {
    super(message);
  }
}

/** The exact bytes of the request body: a framework's `rawBody`/`body` when it kept them, else read from the stream. */
export async function readRawBody(
  req: WebhookIncomingMessage,
  maxBytes: number,
): Promise<string | Uint8Array> {
  if (isRaw(req.rawBody)) return req.rawBody;
  if (isRaw(req.body)) return req.body;
  if (req.body !== undefined && req.body !== null) {
    // A parsed object cannot be re-serialised byte for byte, so its signature cannot be checked.
    throw new RawBodyError(
      500,
      'the request body was already parsed as JSON; the raw body is needed to check its signature (with express use express.raw({ type: "application/json" }) on this route)',
    );
  }
  if (req.readableEnded) {
    throw new RawBodyError(
      500,
      'the request body was already read by something else; pass it as req.rawBody',
    );
  }
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) throw tooLarge(maxBytes);

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else finish(() => reject(tooLarge(maxBytes)));
    };
    const onEnd = (): void => finish(() => resolve(Buffer.concat(chunks)));
    const onError = (error: Error): void => finish(() => reject(error));
    // The stream keeps flowing, so an oversized body drains (not destroyed with its socket) and the 413 reaches the sender.
    const finish = (settle: () => void): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      req.on('error', () => {}); // a sender aborting a drained body must not crash the process
      req.resume();
      settle();
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function isRaw(value: unknown): value is string | Uint8Array {
  return typeof value === 'string' || value instanceof Uint8Array;
}

function tooLarge(maxBytes: number): RawBodyError {
  return new RawBodyError(413, `the request body is larger than ${maxBytes} bytes`);
}
