import { call, emulator, deadUrl } from '../../kit/index.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import {
  EventClient,
  expectPacketInvariants,
  KEY_A,
  messagingSeed,
  newConversation,
  pollReply,
} from '../../kit/messaging.js';

/** How the fake chat-completions backend answers the current test. */
let answer: (
  res: ServerResponse,
  body: { messages: Array<{ role: string; content: string }>; model: string; stream: boolean },
) => void | Promise<void>;
const seen: Array<{
  url: string;
  authorization: string | undefined;
  body: { messages: Array<{ role: string; content: string }>; model: string; stream: boolean };
}> = [];
let server: Server;
const sockets = new Set<Socket>();
let emu: Emulator;

function chunk(content: string): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const piece of req) text += piece;
    const body = JSON.parse(text);
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
    await answer(res, body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  emu = await emulator({
    seed: messagingSeed({
      characters: [
        {
          id: 'char_llm',
          orgId: 'org_a',
          agentId: null,
          name: 'Lena',
          persona: 'You are Lena, a terse poet.',
          engine: 'openai',
        },
      ],
    }),
    llm: {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'tiny-model',
      apiKey: 'sk-local',
      timeoutMs: 2000,
    },
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

async function converse(content: string) {
  const id = await newConversation(emu.messagingUrl, KEY_A, 'char_llm');
  const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
  const sent = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
    bearer: KEY_A,
    body: { content },
  });
  expect(sent.status).toBe(201);
  return { id, events };
}

describe('OpenAI-compatible engine through the messaging API', () => {
  it('streams each delta as a packet, with chunks split across network writes, and [DONE]', async () => {
    answer = async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const stream = Buffer.from(
        chunk('Roses ') + chunk('are ') + chunk('red.') + 'data: [DONE]\n\n',
      );
      // Cut the bytes at awkward places: inside "data:", inside JSON, between the two LFs.
      const cuts = [3, 40, 41, 90, stream.length - 9, stream.length - 1];
      let from = 0;
      for (const cut of [...cuts, stream.length]) {
        res.write(stream.subarray(from, cut));
        from = cut;
        await pause(5);
      }
      res.end();
    };
    const { id, events } = await converse('Write a poem');
    const packets = await events.reply();
    const final = expectPacketInvariants(packets);
    expect(final.content).toBe('Roses are red.');
    expect(packets.map((p) => p.contentDelta)).toEqual(['Roses ', 'are ', 'red.', '']);
    expect(final.error).toBeUndefined();
    const polled = await pollReply(emu.messagingUrl, id, KEY_A);
    expect(polled[polled.length - 1]).toEqual(final);

    const request = seen[seen.length - 1];
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.authorization).toBe('Bearer sk-local');
    expect(request.body).toMatchObject({ model: 'tiny-model', stream: true });
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You are Lena, a terse poet.' },
      { role: 'user', content: 'Write a poem' },
    ]);
  });

  it('sends the conversation so far as history', async () => {
    let n = 0;
    answer = (res) => {
      n++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk(`reply ${n}`) + 'data: [DONE]\n\n');
    };
    const { id, events } = await converse('first');
    await events.reply(1);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'second' },
    });
    await events.reply(2);
    expect(seen[seen.length - 1].body.messages).toEqual([
      { role: 'system', content: 'You are Lena, a terse poet.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'reply 1' },
      { role: 'user', content: 'second' },
    ]);
  });

  it('ends the reply with a clear error when the backend answers an error status', async () => {
    answer = (res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model "tiny-model" not found' } }));
    };
    const { events } = await converse('hello?');
    const final = expectPacketInvariants(await events.reply());
    expect(final.error?.code).toBe('HTTP_STATUS');
    expect(final.content).toMatch(/^\[error: .*404.*model "tiny-model" not found/);
  });

  it('keeps the text so far and appends the error when the connection drops mid-reply', async () => {
    answer = async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Half a '));
      await pause(20);
      res.socket?.destroy();
    };
    const { events } = await converse('tell me');
    const packets = await events.reply();
    const final = expectPacketInvariants(packets);
    expect(packets[0].contentDelta).toBe('Half a ');
    expect(final.content.startsWith('Half a \n\n[error: ')).toBe(true);
    expect(final.error?.code).toMatch(/DISCONNECTED|BAD_STREAM|UNREACHABLE/);
  });

  it('ends the reply with an error, without hanging, when the backend is unreachable', async () => {
    const unreachable = await deadUrl();
    const other = await emulator({
      seed: messagingSeed({
        characters: [{ id: 'char_llm', orgId: 'org_a', name: 'Lena', engine: 'openai' }],
      }),
      llm: { baseUrl: `${unreachable}/v1`, model: 'm' },
    });
    const id = await newConversation(other.messagingUrl, KEY_A, 'char_llm');
    const events = await EventClient.open(other.messagingUrl, id, KEY_A);
    await call(other.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'anyone there?' },
    });
    const final = expectPacketInvariants(await events.reply(1, 5000));
    expect(final.error?.code).toBe('UNREACHABLE');
    expect(final.content).toContain(new URL(unreachable).host);
    const polled = await pollReply(other.messagingUrl, id, KEY_A);
    expect(polled[polled.length - 1]).toEqual(final);
  });

  it('says how to configure the backend when the emulator has none', async () => {
    const other = await emulator({
      seed: messagingSeed({
        characters: [{ id: 'char_llm', orgId: 'org_a', name: 'Lena', engine: 'openai' }],
      }),
    });
    const id = await newConversation(other.messagingUrl, KEY_A, 'char_llm');
    const events = await EventClient.open(other.messagingUrl, id, KEY_A);
    await call(other.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hi' },
    });
    const final = expectPacketInvariants(await events.reply());
    expect(final.error?.code).toBe('NOT_CONFIGURED');
    expect(final.content).toContain('--llm-base-url');
  });
});
