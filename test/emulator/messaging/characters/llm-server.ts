import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/** What the fake backend saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Resolves when the client closed or finished the exchange. */
  closed: Promise<void>;
}

/** A local stand-in for an OpenAI-compatible backend; each test says how it answers. */
export async function startLlmServer(
  answer: (res: ServerResponse, req: IncomingMessage) => void | Promise<void>,
) {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    let text = '';
    for await (const chunk of req) text += chunk;
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
      closed,
    });
    await answer(res, req);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

/** An SSE `data:` event carrying one streamed chat-completion chunk. */
export function chunkEvent(
  content: string | null,
  finishReason: string | null = null,
  extraDelta: object = {},
): string {
  const chunk = {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [
      {
        index: 0,
        delta: { ...extraDelta, ...(content === null ? {} : { content }) },
        finish_reason: finishReason,
      },
    ],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** Starts an event-stream response and flushes its headers. */
export function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** Writes `bytes` in pieces cut at `cuts`, pausing between them so each travels on its own. */
export async function writeInPieces(
  res: ServerResponse,
  bytes: Buffer,
  cuts: number[],
): Promise<void> {
  const points = [0, ...cuts, bytes.length];
  for (let i = 1; i < points.length; i++) {
    res.write(bytes.subarray(points[i - 1], points[i]));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
