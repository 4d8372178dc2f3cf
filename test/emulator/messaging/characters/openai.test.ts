import { describe, expect, it } from 'vitest';
import {
  createOpenAiEngine,
  ReplyEngineError,
  type Character,
  type ReplyRequest,
} from '../../../../emulator/messaging/characters/index.js';
import { collect, collectFailure, expectPacketsWellFormed } from './collect.js';
import { deadUrl } from '../../../kit/index.js';
import { chunkEvent, startLlmServer, startStream, writeInPieces } from './llm-server.js';

const nova: Character = {
  id: 'char_nova',
  orgId: 'org_acme',
  name: 'Nova',
  engine: 'openai',
  persona: 'You are Nova, terse and kind.',
};
const ask = (userMessage: string, extra: Partial<ReplyRequest> = {}): ReplyRequest => ({
  character: nova,
  history: [
    { sender: 'USER', content: 'hi' },
    { sender: 'CHARACTER', content: 'Hello!' },
  ],
  userMessage,
  ...extra,
});

// Every failure must end the reply well before vitest's own timeout would.
const FAST = { timeout: 5_000 };

describe('createOpenAiEngine', () => {
  it('streams each delta as one packet, however the network cuts the stream', FAST, async () => {
    const stream =
      ': keep-alive\n\n' +
      chunkEvent(null, null, { role: 'assistant' }) +
      chunkEvent('') +
      chunkEvent('Hel') +
      ': ping\n\n' +
      chunkEvent('lo ') +
      chunkEvent('wörld 😀') +
      chunkEvent(null, 'stop') +
      'data: [DONE]\n\n';
    const bytes = Buffer.from(stream, 'utf8');
    const inJson = bytes.indexOf('"Hel"') + 2;
    const inEmoji = bytes.indexOf(Buffer.from('😀')) + 2;
    const inUmlaut = bytes.indexOf(Buffer.from('ö')) + 1;
    const inDataPrefix = bytes.indexOf('data: [DONE]') + 3;
    const cuts = [
      5,
      inJson,
      bytes.indexOf('\n\n', inJson) + 1,
      inUmlaut,
      inEmoji,
      inDataPrefix,
    ].sort((a, b) => a - b);
    const llm = await startLlmServer(async (res) => {
      startStream(res);
      await writeInPieces(res, bytes, cuts);
      res.end();
    });
    const engine = createOpenAiEngine({
      baseUrl: llm.baseUrl,
      model: 'llama3.2',
      apiKey: 'sk-test',
    });

    const packets = await collect(engine.reply(ask('how are you?')));

    expect(packets).toEqual(['Hel', 'lo ', 'wörld 😀']);
    expectPacketsWellFormed(packets);
    const [seen] = llm.requests;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/chat/completions');
    expect(seen.headers.authorization).toBe('Bearer sk-test');
    expect(seen.headers['content-type']).toMatch(/^application\/json/);
    expect(seen.body).toEqual({
      model: 'llama3.2',
      stream: true,
      messages: [
        { role: 'system', content: 'You are Nova, terse and kind.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'how are you?' },
      ],
    });
  });

  it(
    'defaults the system prompt to the name and sends no Authorization without an API key',
    FAST,
    async () => {
      const llm = await startLlmServer((res) => {
        startStream(res);
        res.end(chunkEvent('ok') + 'data: [DONE]\n\n');
      });
      const engine = createOpenAiEngine({ baseUrl: `${llm.baseUrl}/`, model: 'm' });
      const packets = await collect(
        engine.reply({
          character: { ...nova, persona: undefined },
          history: [],
          userMessage: 'yo',
        }),
      );
      expect(packets).toEqual(['ok']);
      expect(llm.requests[0].url).toBe('/v1/chat/completions');
      expect(llm.requests[0].headers.authorization).toBeUndefined();
      expect((llm.requests[0].body as { messages: unknown[] }).messages).toEqual([
        { role: 'system', content: 'You are Nova.' },
        { role: 'user', content: 'yo' },
      ]);
    },
  );

  it('accepts a stream that ends after a finish_reason without [DONE]', FAST, async () => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.end(chunkEvent('All ') + chunkEvent('done.', 'stop'));
    });
    const packets = await collect(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')),
    );
    expect(packets).toEqual(['All ', 'done.']);
  });

  it('takes a whole JSON completion from a backend that does not stream', FAST, async () => {
    const llm = await startLlmServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'Whole reply.' },
              finish_reason: 'stop',
            },
          ],
        }),
      );
    });
    expect(
      await collect(createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x'))),
    ).toEqual(['Whole reply.']);
  });

  it(
    'reports an error status with the status, the backend and its error message',
    FAST,
    async () => {
      const llm = await startLlmServer((res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: 'model runner crashed', type: 'server_error' } }),
        );
      });
      const { error, packets } = await collectFailure(
        createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')),
        'HTTP_STATUS',
      );
      expect(packets).toEqual([]);
      expect(error.status).toBe(500);
      expect(error.message).toContain(
        `the LLM backend at ${llm.baseUrl} answered 500: model runner crashed`,
      );
      expect(error.message).toContain('--llm-base-url');
    },
  );

  it('shows the start of a non-JSON error body and hints at the model on 404', FAST, async () => {
    const llm = await startLlmServer((res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found\n' + 'x'.repeat(10_000));
    });
    const { error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'qwen9' }).reply(ask('x')),
      'HTTP_STATUS',
    );
    expect(error.message).toMatch(
      /answered 404: 404 page not found x+…; check --llm-base-url .*"qwen9"/,
    );
    expect(error.message.length).toBeLessThan(600);
  });

  it('reports a dropped connection in the middle of the stream', FAST, async () => {
    const llm = await startLlmServer(async (res) => {
      startStream(res);
      res.write(chunkEvent('Hel') + 'data: {"choi');
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.socket?.destroy();
    });
    const { packets, error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')),
      'DISCONNECTED',
    );
    expect(packets).toEqual(['Hel']);
    expect(error.message).toContain(llm.baseUrl);
  });

  it('reports a stream that ends cleanly before the reply is complete', FAST, async () => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.end(chunkEvent('Hel'));
    });
    const { packets, error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')),
      'DISCONNECTED',
    );
    expect(packets).toEqual(['Hel']);
    expect(error.message).toMatch(/no \[DONE\]/);
  });

  it.each([
    [
      'a chunk that is not JSON',
      'data: {"choices": [\n\n',
      'BAD_STREAM',
      /not JSON: \{"choices": \[/,
    ],
    [
      'a chunk without choices',
      'data: {"object":"chat.completion.chunk"}\n\n',
      'BAD_STREAM',
      /without "choices"/,
    ],
    [
      'content that is not text',
      'data: {"choices":[{"delta":{"content":42}}]}\n\n',
      'BAD_STREAM',
      /not text/,
    ],
    [
      'an error inside the stream',
      'data: {"error":{"message":"context length exceeded"}}\n\n',
      'BACKEND_ERROR',
      /context length exceeded/,
    ],
  ] as const)('reports %s', FAST, async (_, bad, code, message) => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.write(chunkEvent('Hel') + bad);
      // Left open: the engine must stop on the bad chunk, not wait for the end.
    });
    const { packets, error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')),
      code,
    );
    expect(packets).toEqual(['Hel']);
    expect(error.message).toMatch(message);
    await llm.requests[0].closed;
  });

  it('refuses an answer that is not an SSE stream', FAST, async () => {
    const llm = await startLlmServer((res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>Open WebUI</html>');
    });
    const { error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')),
      'BAD_STREAM',
    );
    expect(error.message).toMatch(
      /text\/html instead of an SSE stream \(text\/event-stream\); check --llm-base-url/,
    );
  });

  it('reports a backend nobody listens on', FAST, async () => {
    const baseUrl = `${await deadUrl()}/v1`;
    const { error } = await collectFailure(
      createOpenAiEngine({ baseUrl, model: 'm' }).reply(ask('x')),
      'UNREACHABLE',
    );
    expect(error.message).toBe(
      `cannot reach the LLM backend at ${baseUrl} (ECONNREFUSED); is it running? check --llm-base-url`,
    );
  });

  it('times out on a backend that never answers', FAST, async () => {
    const llm = await startLlmServer(() => {});
    const start = performance.now();
    const { error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm', timeoutMs: 200 }).reply(ask('x')),
      'TIMEOUT',
    );
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(error.message).toMatch(/did not answer within 200 ms/);
  });

  it('times out on a backend that goes silent in the middle of the stream', FAST, async () => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.write(chunkEvent('Hel'));
    });
    const { packets, error } = await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm', timeoutMs: 200 }).reply(ask('x')),
      'TIMEOUT',
    );
    expect(packets).toEqual(['Hel']);
    expect(error.message).toMatch(/sent nothing for 200 ms/);
  });

  it('stops and closes the request when the signal fires', FAST, async () => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.write(chunkEvent('Hel'));
    });
    const controller = new AbortController();
    const stream = createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(
      ask('x', { signal: controller.signal }),
    );
    const packets: string[] = [];
    const error = await (async () => {
      try {
        for await (const packet of stream) {
          packets.push(packet);
          controller.abort();
        }
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ReplyEngineError);
    expect((error as ReplyEngineError).code).toBe('ABORTED');
    expect(packets).toEqual(['Hel']);
    await llm.requests[0].closed;
  });

  it('fails at once with ABORTED when the signal fired before the request', FAST, async () => {
    const llm = await startLlmServer((res) => {
      res.end();
    });
    await collectFailure(
      createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(
        ask('x', { signal: AbortSignal.abort() }),
      ),
      'ABORTED',
    );
    expect(llm.requests).toEqual([]);
  });

  it('closes the request when the reader stops early', FAST, async () => {
    const llm = await startLlmServer((res) => {
      startStream(res);
      res.write(chunkEvent('Hel'));
    });
    for await (const _ of createOpenAiEngine({ baseUrl: llm.baseUrl, model: 'm' }).reply(ask('x')))
      break;
    await llm.requests[0].closed;
  });

  it('refuses a base URL that is not an http(s) URL', () => {
    for (const baseUrl of ['localhost:11434', 'ftp://host/v1']) {
      expect(() => createOpenAiEngine({ baseUrl, model: 'm' })).toThrow(/--llm-base-url/);
    }
  });
});
