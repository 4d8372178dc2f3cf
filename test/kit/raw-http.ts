import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 answer as read off the wire. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A plain TCP connection to an HTTP server, for requests no client would send as written
 * (`/%61pi/…`, the absolute form, a body that never ends): clients normalise paths and finish bodies.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  /** Resolves when the server ends or closes the connection. */
  readonly closed: Promise<void>;
  private ended = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    this.closed = new Promise((resolve) => {
      const done = () => {
        this.ended = true;
        this.waiting?.();
        resolve();
      };
      socket.once('end', done);
      socket.once('close', done);
    });
    socket.on('error', () => undefined);
  }

  /** Connects to the host and port of `baseUrl`. */
  static open(baseUrl: string): Promise<RawConnection> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        resolve(new RawConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  /** Writes bytes as they are. */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Reads the next complete answer (content-length or chunked); rejects if the connection ends first or `timeoutMs` passes. */
  async response(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.ended)
        throw new Error(
          `the connection ended before a whole answer (${this.buffer.length} bytes read)`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no whole answer within ${timeoutMs} ms (${this.buffer.length} bytes read)`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = null;
    }
  }

  /** Whether the server ends the connection within `timeoutMs`. */
  async endsWithin(timeoutMs: number): Promise<boolean> {
    const timeout = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), timeoutMs).unref(),
    );
    return Promise.race([this.closed.then(() => true), timeout]);
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): RawResponse | null {
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd === -1) return null;
    const lines = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let rest = this.buffer.subarray(headEnd + 4);
    let body: Buffer;
    if (headers['transfer-encoding']?.includes('chunked')) {
      const parts: Buffer[] = [];
      let at = 0;
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd === -1) return null;
        const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
        if (rest.length < lineEnd + 2 + size + 2) return null;
        parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
      rest = rest.subarray(at);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (rest.length < length) return null;
      body = rest.subarray(0, length);
      rest = rest.subarray(length);
    }
    this.buffer = Buffer.from(rest);
    return { status, headers, body: body.toString('utf8') };
  }
}

/** Sends one request as written (with `Connection: close`) and reads its answer. */
export async function rawRequest(
  baseUrl: string,
  method: string,
  target: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const connection = await RawConnection.open(baseUrl);
  try {
    const url = new URL(baseUrl);
    const headers: Record<string, string> = {
      host: url.host,
      connection: 'close',
      ...options.headers,
    };
    if (options.body !== undefined)
      headers['content-length'] = String(Buffer.byteLength(options.body));
    const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    connection.write(head + (options.body ?? ''));
    return await connection.response();
  } finally {
    connection.close();
  }
}
