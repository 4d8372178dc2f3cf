import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Emulator, Seed } from '../../../emulator/index.js';
import { createClient, type PlatformClient } from '../../../src/client/index.js';
import { emulator } from '../../kit/index.js';

export const API_KEY = 'psk_chat_test_key';
export const TOKEN = 'pst_chat_test_token';
export const ORG = 'org_dev';
/** Nova's scripted answer to "hello". */
export const NOVA_HELLO = "Hi there! I'm Nova, a scripted character in the plugsmith emulator.";
/** Slow's answer to anything: long, in small packets, so a test can act while it streams. */
export const SLOW_REPLY =
  'One, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve.';

/** Characters for the chat tests: Nova (scripted, like the default workspace's) and a slow one. */
export const CHAT_SEED: Seed = {
  users: [{ id: 'user_dev', name: 'Dev' }],
  orgs: [{ id: ORG, name: 'Dev org', members: [{ userId: 'user_dev', role: 'OWNER' }] }],
  tokens: [{ userId: 'user_dev', token: TOKEN, orgId: null, name: 'owner' }],
  characters: [
    {
      id: 'char_nova',
      orgId: ORG,
      name: 'Nova',
      script: [{ match: '\\b(hello|hi|hey)\\b', reply: NOVA_HELLO }],
      fallbackReply: 'Tell me more.',
      packetSize: 8,
      packetIntervalMs: 5,
    },
    {
      id: 'char_slow',
      orgId: ORG,
      name: 'Slow',
      fallbackReply: SLOW_REPLY,
      packetSize: 2,
      packetIntervalMs: 25,
    },
  ],
  apiKeys: [{ key: API_KEY, orgId: ORG }],
} as Seed;

/** An emulator for a test file, started before its tests and closed by the kit after them (its clients first). */
export function useChatEmulator(): { emu: Emulator; client: () => PlatformClient } {
  const env = {} as { emu: Emulator; client: () => PlatformClient };
  const clients: PlatformClient[] = [];
  beforeAll(async () => {
    env.emu = await emulator({ seed: CHAT_SEED });
  });
  env.client = () => {
    const client = createClient({
      baseUrl: env.emu.url,
      messagingUrl: env.emu.messagingUrl,
      token: TOKEN,
      apiKey: API_KEY,
      adminToken: env.emu.adminToken,
    });
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });
  return env;
}

/**
 * A real HTTP proxy in front of the messaging API that can refuse the conversation stream (as a
 * platform without one would), open it late (as a slow network would) or cut the open streams
 * (as a dropped connection would).
 */
export async function messagingProxy(
  target: string,
  options: { refuseEvents?: boolean; delayEventsMs?: number } = {},
) {
  const open = new Set<ServerResponse>();
  let eventRequests = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const isEvents = /\/events(\?|$)/.test(req.url ?? '');
    if (isEvents) eventRequests++;
    if (isEvents && options.refuseEvents) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ ok: false, error: { message: 'Route not found', error: 'NOT_FOUND' } }),
        );
      return;
    }
    if (isEvents && options.delayEventsMs) {
      setTimeout(() => forward(req, res, isEvents), options.delayEventsMs);
      return;
    }
    forward(req, res, isEvents);
  });
  function forward(req: IncomingMessage, res: ServerResponse, isEvents: boolean) {
    const upstream = httpRequest(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (isEvents) {
          open.add(res);
          res.once('close', () => open.delete(res));
        }
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.once('close', () => upstream.destroy());
    req.pipe(upstream);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Event-stream requests seen so far (first connection and reconnections). */
    eventRequests: () => eventRequests,
    /** Streams open right now. */
    openStreams: () => open.size,
    /** Cuts every open conversation stream mid-flight. */
    dropStreams: () => {
      for (const res of open) res.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
