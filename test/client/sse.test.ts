import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createClient,
  isCharacterMessageSent,
  SseParser,
  type ServerSentEvent,
} from '../../src/client/index.js';
import { json, receiver } from '../kit/index.js';

const STREAM =
  '\uFEFF: connected\n' +
  'retry: 1500\n' +
  'event: CHARACTER_MESSAGE_SENT\n' +
  'id: 1\n' +
  'data: {"message":{"id":"m1","content":"Hi","isStreaming":true},"contentDelta":"Hi"}\n' +
  '\n' +
  'event: CHARACTER_MESSAGE_SENT\r\n' +
  'data: {"message":{"id":"m1","content":"Hi there","isStreaming":false},\r\n' +
  'data: "contentDelta":" there"}\r\n' +
  '\r\n' +
  'data:plain text\r' +
  'data\r' +
  '\r' +
  'event: ignored-without-data\n\n' +
  'data: never finished';

const EXPECTED = [
  {
    event: 'CHARACTER_MESSAGE_SENT',
    id: '1',
    data: { message: { id: 'm1', content: 'Hi', isStreaming: true }, contentDelta: 'Hi' },
  },
  {
    event: 'CHARACTER_MESSAGE_SENT',
    id: '1',
    data: {
      message: { id: 'm1', content: 'Hi there', isStreaming: false },
      contentDelta: ' there',
    },
  },
  { event: 'message', id: '1', data: 'plain text\n', rawData: 'plain text\n' },
];

function parseInChunks(
  text: string,
  cuts: number[],
): { events: ServerSentEvent[]; parser: SseParser } {
  const parser = new SseParser();
  const events: ServerSentEvent[] = [];
  let last = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    events.push(...parser.push(text.slice(last, cut)));
    last = cut;
  }
  events.push(...parser.push(text.slice(last)));
  return { events, parser };
}

describe('SseParser', () => {
  it('parses events, multi-line data, comments, retry, ids, CRLF and CR, and drops an unfinished event', () => {
    const { events, parser } = parseInChunks(STREAM, []);
    expect(events).toMatchObject(EXPECTED);
    expect(parser.retryMs).toBe(1500);
    expect(parser.lastEventId).toBe('1');
  });

  it('gives the same events however the stream is split', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 12 }),
        (cuts) => {
          expect(parseInChunks(STREAM, cuts).events).toMatchObject(EXPECTED);
        },
      ),
    );
  });

  it('splits a CRLF across chunks into one line break, not two', () => {
    const { events } = parseInChunks('data: a\r\ndata: b\r\n\r\n', [8]);
    expect(events).toHaveLength(1);
    expect(events[0].rawData).toBe('a\nb');
  });
});

describe('messaging.events', () => {
  it('yields events written in chunks split mid-line, and ends when aborted', async () => {
    const pieces = [
      'event: CHARACTER_MES',
      'SAGE_SENT\ndata: {"message":{"id":"m1","conten',
      't":"Hé"},"contentDelta":"Hé"}\n',
      '\n: keep-alive\n\n',
      'event: CHARACTER_MESSAGE_SENT\ndata: {"message":{"id":"m1","content":"Hé!"},"contentDelta":"!"}\n\n',
    ];
    // "é" as two bytes in separate writes: the decoder must join them.
    const server = await receiver(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of pieces) {
        const bytes = Buffer.from(piece);
        const split = piece.includes('é') ? bytes.indexOf(0xa9) : bytes.length;
        res.write(bytes.subarray(0, split));
        await new Promise((r) => setTimeout(r, 10));
        if (split < bytes.length) res.write(bytes.subarray(split));
      }
    });
    const client = createClient({
      baseUrl: server.url,
      messagingUrl: server.url,
      apiKey: 'key_acme',
    });
    const controller = new AbortController();
    const deltas: string[] = [];
    for await (const event of client.messaging.events('conv_1', { signal: controller.signal })) {
      expect(isCharacterMessageSent(event)).toBe(true);
      if (isCharacterMessageSent(event)) deltas.push(event.data.contentDelta ?? '');
      if (deltas.length === 2) controller.abort();
    }
    expect(deltas).toEqual(['Hé', '!']);
    expect(server.received[0].url).toBe('/conversations/conv_1/events');
    expect(server.received[0].headers.accept).toBe('text/event-stream');
    expect(server.received[0].headers.authorization).toBe('Bearer key_acme');
  });

  it('ends quietly on abort while waiting for the next event, and when the server closes the stream', async () => {
    const server = await receiver((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 250\ndata: {"n":1}\n\n');
      if (req.url?.includes('closing')) res.end();
    });
    // Long enough for the headers on a loaded machine; the stream then stays quiet for longer.
    const timeoutMs = 1_500;
    const client = createClient({ baseUrl: server.url, messagingUrl: server.url, timeoutMs });
    const controller = new AbortController();
    const stream = client.messaging.events('conv_open', { signal: controller.signal });
    const seen: unknown[] = [];
    // Aborts once the first event is in, after waiting past timeoutMs: the timeout covers the
    // headers, not a quiet stream. (A timer from the start raced the first event under load.)
    // Only time shows a timeout does not fire; a shorter timeoutMs would not cover the headers under load.
    for await (const event of stream) {
      seen.push(event.data);
      setTimeout(() => controller.abort(), timeoutMs + 500);
    }
    expect(seen).toEqual([{ n: 1 }]);
    expect(stream.retryMs).toBe(250);

    const closing: unknown[] = [];
    for await (const event of client.messaging.events('closing')) closing.push(event.data);
    expect(closing).toEqual([{ n: 1 }]);
  });

  it('streams the emulator delivery log with filters as query parameters', async () => {
    const server = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(
        ': plugsmith delivery stream\n\nid: dlv_1.1\nevent: attempt\ndata: {"delivery":{"id":"dlv_1"}}\n\n',
      );
    });
    const client = createClient({ baseUrl: server.url, token: 'tok_olive' });
    const stream = client.emulator.deliveries.stream({ pluginId: 'plg_1' });
    const events: ServerSentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events).toMatchObject([
      { event: 'attempt', id: 'dlv_1.1', data: { delivery: { id: 'dlv_1' } } },
    ]);
    expect(stream.lastEventId).toBe('dlv_1.1');
    expect(server.received[0].url).toBe('/_emulator/deliveries/stream?pluginId=plg_1');
  });

  it('throws an ApiError for an error status', async () => {
    const server = await receiver((_req, res) =>
      json(res, 404, {
        ok: false,
        error: { message: 'conversation not found', error: 'NOT_FOUND' },
      }),
    );
    const client = createClient({ baseUrl: server.url, messagingUrl: server.url });
    const iterate = async () => {
      for await (const _event of client.messaging.events('nope')) void _event;
    };
    await expect(iterate()).rejects.toMatchObject({
      name: 'ApiError',
      status: 404,
      type: 'NOT_FOUND',
    });
    await expect(iterate()).rejects.toBeInstanceOf(ApiError);
  });
});
