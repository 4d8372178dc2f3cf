import { request } from 'undici';
import { expect, onTestFinished } from 'vitest';
import type { Seed } from '../../../emulator/index.js';
import { call } from '../../kit/index.js';

/** The message shape of the messaging API. */
export interface Message {
  id: string;
  conversationId: string;
  sender: 'USER' | 'CHARACTER';
  type: string;
  content: string;
  attachments: Array<{ type: string; content: string }>;
  isStreaming: boolean;
  createdAt: string;
  updatedAt: string;
  error?: { code: string; message: string };
}

/** One CHARACTER_MESSAGE_SENT packet as a client receives it. */
export interface Packet {
  message: Message;
  contentDelta: string;
}

export const KEY_A = 'psk_test_org_a_key';
export const KEY_B = 'psk_test_org_b_key';

/** Two orgs, each with an agent, characters and an API key; org A's characters cover the engines. */
export function messagingSeed(extra: Partial<Seed> = {}): Seed {
  return {
    users: [
      { id: 'u_a', name: 'Ann' },
      { id: 'u_b', name: 'Bob' },
    ],
    orgs: [
      { id: 'org_a', name: 'A', members: [{ userId: 'u_a', role: 'OWNER' }] },
      { id: 'org_b', name: 'B', members: [{ userId: 'u_b', role: 'OWNER' }] },
    ],
    tokens: [
      { userId: 'u_a', token: 'pst_test_user_a' },
      { userId: 'u_b', token: 'pst_test_user_b' },
    ],
    agents: [
      { id: 'agent_a', orgId: 'org_a', name: 'Agent A' },
      { id: 'agent_b', orgId: 'org_b', name: 'Agent B' },
    ],
    characters: [
      {
        id: 'char_fast',
        orgId: 'org_a',
        agentId: 'agent_a',
        name: 'Fast',
        script: [{ match: 'hello', reply: 'Hi there, {{name}} here!' }],
        fallbackReply: 'Tell me more about that, please.',
        packetSize: 3,
        packetIntervalMs: 0,
      },
      {
        id: 'char_slow',
        orgId: 'org_a',
        agentId: null,
        name: 'Slow',
        fallbackReply: 'One two three four five six seven eight nine ten.',
        packetSize: 4,
        packetIntervalMs: 25,
      },
      { id: 'char_b', orgId: 'org_b', agentId: 'agent_b', name: 'Bee', fallbackReply: 'Buzz.' },
    ],
    apiKeys: [
      { key: KEY_A, orgId: 'org_a' },
      { key: KEY_B, orgId: 'org_b' },
    ],
    ...extra,
  };
}

/** A server-sent-events client of `GET /conversations/:id/events`, parsing frames as they arrive. */
export class EventClient {
  readonly packets: Packet[] = [];
  readonly comments: string[] = [];
  private buffer = '';
  private waiters: Array<() => void> = [];
  private destroy: () => void = () => undefined;
  ended = false;
  status = 0;
  headers: Record<string, unknown> = {};

  static async open(base: string, conversationId: string, key: string): Promise<EventClient> {
    const client = new EventClient();
    const response = await request(`${base}/conversations/${conversationId}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    client.status = response.statusCode;
    client.headers = response.headers;
    client.destroy = () => response.body.destroy();
    response.body.setEncoding('utf8');
    response.body.on('data', (chunk: string) => client.push(chunk));
    response.body.on('end', () => client.finish());
    response.body.on('error', () => client.finish());
    response.body.on('close', () => client.finish());
    onTestFinished(() => client.close());
    return client;
  }

  /** Resolves when `predicate` holds for the packets so far (checked after every frame). */
  async until(predicate: (packets: Packet[]) => boolean, timeoutMs = 5000): Promise<Packet[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.packets)) {
      if (this.ended)
        throw new Error(`stream ended before the condition held; packets: ${this.packets.length}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for packets; got ${this.packets.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.packets;
  }

  /** Waits for the final packet of the `n`th character message (1-based) and returns that message's packets. */
  async reply(n = 1, timeoutMs = 5000): Promise<Packet[]> {
    await this.until(
      (packets) => packets.filter((p) => !p.message.isStreaming).length >= n,
      timeoutMs,
    );
    const finals = this.packets.filter((p) => !p.message.isStreaming);
    const id = finals[n - 1].message.id;
    return this.packets.filter((p) => p.message.id === id);
  }

  close(): void {
    this.destroy();
  }

  private push(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length === 0) continue;
      expect(event).toBe('CHARACTER_MESSAGE_SENT');
      this.packets.push(JSON.parse(data.join('\n')) as Packet);
    }
    this.wake();
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/**
 * Checks the packet invariants of one character message seen from its first packet: one
 * message id; each content extends the previous by exactly its delta; isStreaming true until
 * exactly one final packet; the deltas concatenate to the final content. Returns the final message.
 */
export function expectPacketInvariants(packets: Packet[]): Message {
  expect(packets.length).toBeGreaterThan(0);
  const id = packets[0].message.id;
  let content = '';
  packets.forEach((packet, i) => {
    expect(packet.message.id).toBe(id);
    expect(packet.message.sender).toBe('CHARACTER');
    expect(packet.message.content).toBe(content + packet.contentDelta);
    content = packet.message.content;
    expect(packet.message.isStreaming).toBe(i < packets.length - 1);
  });
  expect(packets.map((p) => p.contentDelta).join('')).toBe(content);
  return packets[packets.length - 1].message;
}

/** Polls the messages of a conversation until the `n`th CHARACTER message has ended; returns every snapshot of it seen. */
export async function pollReply(
  base: string,
  conversationId: string,
  key: string,
  n = 1,
  timeoutMs = 5000,
): Promise<Message[]> {
  const seen: Message[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(base, 'GET', `/conversations/${conversationId}/messages?limit=100`, {
      bearer: key,
    });
    expect(res.status).toBe(200);
    const replies = (res.body.data as Message[]).filter((m) => m.sender === 'CHARACTER');
    const reply = replies[n - 1];
    if (reply) {
      const last = seen[seen.length - 1];
      if (!last || last.content !== reply.content || last.isStreaming !== reply.isStreaming)
        seen.push(reply);
      if (!reply.isStreaming) return seen;
    }
    if (Date.now() > deadline) throw new Error('timed out polling for the reply');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Creates a conversation with a character; returns its id. */
export async function newConversation(
  base: string,
  key: string,
  characterId: string,
): Promise<string> {
  const res = await call(base, 'POST', '/conversations', { bearer: key, body: { characterId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
}
