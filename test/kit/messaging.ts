import { request } from 'undici';
import { expect, onTestFinished } from 'vitest';
import type { Seed } from '../../emulator/index.js';
import { call } from './http.js';
import { until } from './until.js';

// The messaging API as a client of it sees it: a seed with two orgs and their keys, a conversation,
// its server-sent events and its messages polled, and the invariants of a streamed reply.

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
  private destroy: () => void = () => undefined;
  private conversationId = '';
  ended = false;
  status = 0;
  headers: Record<string, unknown> = {};

  static async open(base: string, conversationId: string, key: string): Promise<EventClient> {
    const client = new EventClient();
    client.conversationId = conversationId;
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

  /**
   * Resolves when `predicate` holds for the packets so far (the kit's `until`, probing every few ms); fails at once if the
   * stream ends first, and at `timeoutMs` naming `what` it waited for and the packets it got.
   */
  async until(
    what: string,
    predicate: (packets: Packet[]) => boolean,
    timeoutMs = 5000,
  ): Promise<Packet[]> {
    const outcome = await until(
      `${what} on the events of conversation ${this.conversationId}`,
      () => (predicate(this.packets) ? 'held' : this.ended ? 'ended' : undefined),
      { timeoutMs, intervalMs: 2, explain: () => `packets so far: ${this.packets.length}` },
    );
    if (outcome === 'ended')
      throw new Error(
        `the events of conversation ${this.conversationId} ended before ${what}; packets: ${this.packets.length}`,
      );
    return this.packets;
  }

  /** Waits for the final packet of the `n`th character message (1-based) and returns that message's packets. */
  async reply(n = 1, timeoutMs = 5000): Promise<Packet[]> {
    await this.until(
      `the final packet of character message ${n}`,
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
  }

  private finish(): void {
    this.ended = true;
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
  const answer = await until(
    `character message ${n} of conversation ${conversationId} to end (polling its messages)`,
    async () => {
      const res = await call(base, 'GET', `/conversations/${conversationId}/messages?limit=100`, {
        bearer: key,
      });
      // Any other answer ends the wait, and the assertion below fails on it.
      if (res.status !== 200) return res;
      const replies = (res.body.data as Message[]).filter((m) => m.sender === 'CHARACTER');
      const reply = replies[n - 1];
      if (!reply) return undefined;
      const last = seen[seen.length - 1];
      if (!last || last.content !== reply.content || last.isStreaming !== reply.isStreaming)
        seen.push(reply);
      return reply.isStreaming ? undefined : res;
    },
    {
      timeoutMs,
      intervalMs: 2,
      explain: () =>
        `snapshots seen: ${seen.length}${seen.length ? `, the last streaming: ${seen[seen.length - 1].isStreaming}` : ''}`,
    },
  );
  expect(answer.status).toBe(200);
  return seen;
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
