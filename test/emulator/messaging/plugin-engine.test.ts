import { call, emulator } from '../../kit/index.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { verifyWebhook, type WebhookEvent } from '../../../src/shared/webhooks/index.js';
import {
  EventClient,
  expectPacketInvariants,
  KEY_A,
  messagingSeed,
  newConversation,
  pollReply,
  type Message,
} from '../../kit/messaging.js';

const USER_TOKEN = 'pst_test_user_a';

/**
 * A plugin's webhook server: verifies every delivery with verifyWebhook, answers the challenge,
 * keeps its installation token, and hands AGENT_MESSAGE_RECEIVED events to `onMessage`.
 */
class PluginServer {
  secret = '';
  /** Installation tokens by plugin instance id. */
  readonly tokens = new Map<string, string>();
  readonly received: WebhookEvent[] = [];
  readonly rejected: string[] = [];
  onMessage: (event: WebhookEvent, res: ServerResponse) => void | Promise<void> = (_event, res) =>
    void res.end();
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      let event: WebhookEvent;
      try {
        event = verifyWebhook(raw, req.headers, this.secret);
      } catch (error) {
        this.rejected.push((error as Error).message);
        res.writeHead(401).end();
        return;
      }
      this.received.push(event);
      if (event.type === 'WEBHOOK_CHALLENGE') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challenge: (event.data as { challenge: string }).challenge }));
      } else if (event.type === 'PLUGIN_INSTALLED') {
        const data = event.data as { accessToken: string; instance: { id: string } };
        this.tokens.set(data.instance.id, data.accessToken);
        res.writeHead(200).end();
      } else if (event.type === 'AGENT_MESSAGE_RECEIVED') {
        await this.onMessage(event, res);
        if (!res.writableEnded) res.writeHead(200).end();
      } else {
        res.writeHead(200).end();
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let emu: Emulator;
const plugin = new PluginServer();
let pluginId = '';
let instanceId = '';

/** The plugin writes one packet into a conversation with its installation token. */
function write(
  conversationId: string,
  body: unknown,
  options: { token?: string | null; agentId?: string } = {},
) {
  const token = options.token === undefined ? plugin.tokens.get(instanceId) : options.token;
  return call(
    emu.url,
    'POST',
    `/api/agents/${options.agentId ?? 'agent_a'}/conversations/${conversationId}/messages`,
    { token: token === null ? undefined : `Bearer ${token}`, body },
  );
}

beforeAll(async () => {
  await plugin.start();
  emu = await emulator({ seed: messagingSeed(), messaging: { pluginReplyTimeoutMs: 400 } });
  const created = await call(emu.url, 'POST', '/api/plugins', {
    token: USER_TOKEN,
    body: {
      name: 'Replier',
      type: 'EVENT_HANDLER',
      orgId: 'org_a',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      webhookUrl: plugin.url,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  pluginId = created.body.data.id;
  plugin.secret = created.body.data.webhookSecret;
  const verified = await call(emu.url, 'POST', `/api/plugins/${pluginId}/verify-webhook`, {
    token: USER_TOKEN,
  });
  expect(verified.body.data.verified, JSON.stringify(verified.body)).toBe(true);
  const installed = await call(emu.url, 'POST', '/api/agents/agent_a/plugins', {
    token: USER_TOKEN,
    body: {
      name: 'Replier on agent A',
      pluginId,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  instanceId = installed.body.data.id;
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  expect(plugin.tokens.get(instanceId)).toMatch(/^psi_/);
});

afterAll(async () => {
  await plugin.stop();
});

describe('plugin-driven replies', () => {
  it('delivers AGENT_MESSAGE_RECEIVED and streams the reply the plugin writes in packets', async () => {
    const replies: Array<{ status: number; body: { data: Message } }> = [];
    plugin.onMessage = (event, res) => {
      res.writeHead(200).end();
      // Reply after acknowledging, like a real plugin doing slow work.
      void (async () => {
        const { conversationId } = event.data as { conversationId: string };
        const first = await write(conversationId, { content: 'Hel', type: 'TEXT' });
        replies.push(first);
        const messageId = first.body.data.id;
        replies.push(await write(conversationId, { content: 'lo from ', messageId }));
        replies.push(await write(conversationId, { content: 'the plugin.', messageId }));
        replies.push(await write(conversationId, { content: '', messageId, isStreaming: false }));
      })();
    };
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    const sent = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hello' },
    });
    expect(sent.status).toBe(201);

    const packets = await events.reply();
    const final = expectPacketInvariants(packets);
    expect(final.content).toBe('Hello from the plugin.');
    expect(packets.map((p) => p.contentDelta)).toEqual(['Hel', 'lo from ', 'the plugin.', '']);
    expect(replies.map((r) => r.status)).toEqual([201, 200, 200, 200]);
    expect(replies[0].body.data.isStreaming).toBe(true);
    expect(replies[3].body.data).toEqual(final);

    const event = plugin.received.find(
      (e) =>
        e.type === 'AGENT_MESSAGE_RECEIVED' &&
        (e.data as { conversationId: string }).conversationId === id,
    )!;
    expect(event).toMatchObject({ pluginId, pluginInstanceId: instanceId, orgId: 'org_a' });
    expect(event.data).toEqual({
      agentId: 'agent_a',
      characterId: 'char_fast',
      conversationId: id,
      message: sent.body.data,
    });
    expect(plugin.rejected).toEqual([]);

    // The built-in engine stayed silent: the plugin's message is the only reply.
    const listed = (
      await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, { bearer: KEY_A })
    ).body.data as Message[];
    expect(listed.map((m) => m.sender)).toEqual(['USER', 'CHARACTER']);
    expect(listed[1]).toEqual(final);
  });

  it('lets polling see a plugin message grow', async () => {
    let messageId = '';
    let conversationId = '';
    const opened = new Promise<void>((resolve) => {
      plugin.onMessage = async (event, res) => {
        res.writeHead(200).end();
        conversationId = (event.data as { conversationId: string }).conversationId;
        messageId = (await write(conversationId, { content: 'Thinking' })).body.data.id;
        resolve();
      };
    });
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'question' },
    });
    await opened;
    const growing = (
      await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, { bearer: KEY_A })
    ).body.data as Message[];
    expect(growing[1]).toMatchObject({ id: messageId, content: 'Thinking', isStreaming: true });
    await write(id, { content: '… done.', messageId });
    expect(
      (
        await call(
          emu.messagingUrl,
          'GET',
          `/conversations/${id}/messages?after=${growing[0].id}`,
          { bearer: KEY_A },
        )
      ).body.data[0],
    ).toMatchObject({ content: 'Thinking… done.', isStreaming: true });
    await write(id, { content: '', messageId, isStreaming: false });
    const polled = await pollReply(emu.messagingUrl, id, KEY_A);
    expect(polled[polled.length - 1]).toMatchObject({
      content: 'Thinking… done.',
      isStreaming: false,
    });
  });

  it('accepts a whole message in one call, and non-TEXT messages', async () => {
    plugin.onMessage = (_event, res) => void res.writeHead(200).end();
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hi' },
    });
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    const whole = await write(id, { content: 'All at once.', isStreaming: false });
    expect(whole.status).toBe(201);
    expect(whole.body.data).toMatchObject({
      sender: 'CHARACTER',
      content: 'All at once.',
      isStreaming: false,
    });
    const image = await write(id, { content: 'https://example.com/chart.png', type: 'IMAGE' });
    expect(image.status).toBe(201);
    expect(image.body.data).toMatchObject({ type: 'IMAGE', isStreaming: false });
    const form = await write(id, {
      content: '{"fields":[{"name":"email","type":"text"}]}',
      type: 'FORM',
      isStreaming: false,
    });
    expect(form.status).toBe(201);
    await events.until('the three messages', (packets) => packets.length === 3);
    expect(
      events.packets.map((p) => [p.message.type, p.contentDelta, p.message.isStreaming]),
    ).toEqual([
      ['TEXT', 'All at once.', false],
      ['IMAGE', 'https://example.com/chart.png', false],
      ['FORM', '{"fields":[{"name":"email","type":"text"}]}', false],
    ]);
  });

  it('ends a plugin message that stops receiving packets', async () => {
    plugin.onMessage = (_event, res) => void res.writeHead(200).end();
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hi' },
    });
    const opened = await write(id, { content: 'I will never fin' });
    const final = expectPacketInvariants(await events.reply(1, 3000));
    expect(final.error?.code).toBe('TIMEOUT');
    expect(final.content.startsWith('I will never fin\n\n[error: ')).toBe(true);
    const late = await write(id, { content: 'ish', messageId: opened.body.data.id });
    expect(late.status).toBe(409);
  });

  it('awaits a SYNC handler before answering the user message', async () => {
    // A second agent with a SYNC instance whose handler writes the whole reply before acknowledging.
    await call(emu.url, 'POST', '/_emulator/agents', {
      headers: emu.adminHeaders,
      body: { id: 'agent_sync', orgId: 'org_a', name: 'Sync agent' },
    });
    await call(emu.url, 'POST', '/_emulator/characters', {
      headers: emu.adminHeaders,
      body: { id: 'char_sync', orgId: 'org_a', agentId: 'agent_sync', name: 'Sync' },
    });
    const installed = await call(emu.url, 'POST', '/api/agents/agent_sync/plugins', {
      token: USER_TOKEN,
      body: {
        name: 'sync',
        pluginId,
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: ['AGENT_MESSAGE_WRITE'],
        eventDispatchMode: 'SYNC',
      },
    });
    expect(installed.status).toBe(201);
    await emu.waitForDelivery({
      type: 'PLUGIN_INSTALLED',
      pluginInstanceId: installed.body.data.id,
    });
    const token = plugin.tokens.get(installed.body.data.id);
    plugin.onMessage = async (event) => {
      const { conversationId } = event.data as { conversationId: string };
      await write(
        conversationId,
        { content: 'Synchronous answer.', isStreaming: false },
        { token, agentId: 'agent_sync' },
      );
    };
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_sync');
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'now' },
    });
    // No waiting: the reply was written during the delivery the POST awaited.
    const listed = (
      await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, { bearer: KEY_A })
    ).body.data as Message[];
    expect(listed.map((m) => [m.sender, m.content])).toEqual([
      ['USER', 'now'],
      ['CHARACTER', 'Synchronous answer.'],
    ]);
  });

  it('says so in a reply when a plugin-driven character has no handler', async () => {
    await call(emu.url, 'PATCH', '/_emulator/characters/char_slow', {
      headers: emu.adminHeaders,
      body: { engine: 'plugin' },
    });
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_slow');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hi' },
    });
    const final = expectPacketInvariants(await events.reply());
    expect(final.error?.code).toBe('NOT_CONFIGURED');
    expect(final.content).toContain('AGENT_MESSAGE_RECEIVED');
  });
});

describe('POST /api/agents/:agentId/conversations/:conversationId/messages', () => {
  let conversationId = '';
  beforeAll(async () => {
    plugin.onMessage = (_event, res) => void res.writeHead(200).end();
    conversationId = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
  });

  it('needs an installation token with AGENT_MESSAGE_WRITE on that agent', async () => {
    const body = { content: 'x', isStreaming: false };
    expect((await write(conversationId, body, { token: null })).status).toBe(401);
    expect((await write(conversationId, { nonsense: 1 }, { token: null })).status).toBe(401);
    expect((await write(conversationId, body, { token: 'psi_unknown_token' })).status).toBe(401);
    const user = await write(conversationId, body, { token: USER_TOKEN });
    expect(user.status).toBe(403);
    const otherAgent = await write(conversationId, body, { agentId: 'agent_b' });
    expect(otherAgent.status).toBe(403);
    expect(otherAgent.body.error.message).toContain('agent_a');
    // A conversation of a character of another agent is not this instance's to write into.
    const key = (
      await call(emu.url, 'POST', '/_emulator/api-keys', {
        headers: emu.adminHeaders,
        body: { orgId: 'org_a' },
      })
    ).body.data.key as string;
    const elsewhere = await newConversation(emu.messagingUrl, key, 'char_slow');
    expect((await write(elsewhere, body)).status).toBe(404);
    expect((await write('conv_missing', body)).status).toBe(404);
  });

  it('refuses an installation token of this agent without AGENT_MESSAGE_WRITE (403), and one whose instance was removed (401)', async () => {
    const body = { content: 'x', isStreaming: false };
    const installOnAgent = async (scopes: string[]) => {
      const installed = await call(emu.url, 'POST', '/api/agents/agent_a/plugins', {
        token: USER_TOKEN,
        body: { name: 'another', pluginId, events: [], scopes },
      });
      expect(installed.status, JSON.stringify(installed.body)).toBe(201);
      const id = installed.body.data.id as string;
      await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: id });
      return { id, token: plugin.tokens.get(id)! };
    };
    const unscoped = await installOnAgent([]);
    const refused = await write(conversationId, body, { token: unscoped.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('lacks the AGENT_MESSAGE_WRITE scope');

    const removed = await installOnAgent(['AGENT_MESSAGE_WRITE']);
    expect((await write(conversationId, body, { token: removed.token })).status).toBe(201);
    expect(
      (
        await call(emu.url, 'DELETE', `/api/agents/agent_a/plugins/${removed.id}`, {
          token: USER_TOKEN,
        })
      ).status,
    ).toBe(200);
    expect((await write(conversationId, body, { token: removed.token })).status).toBe(401);
  });

  it('refuses bad packets with 4xx and details', async () => {
    const opened = await write(conversationId, { content: 'open' });
    expect(opened.status).toBe(201);
    const messageId = opened.body.data.id;
    const cases: Array<[unknown, number]> = [
      [{}, 400],
      [{ content: 5 }, 400],
      [{ content: 'x', type: 'VIDEO' }, 400],
      [{ content: 'x'.repeat(32 * 1024 + 1) }, 400],
      [{ content: 'x', isStreaming: 'no' }, 400],
      [{ content: 'not a url', type: 'IMAGE' }, 400],
      [{ content: 'https://example.com/a.png', type: 'IMAGE', isStreaming: true }, 400],
      [{ content: '', isStreaming: false }, 400],
      [{ content: 'x', messageId, type: 'IMAGE' }, 400],
      [{ content: 'x', messageId, attachments: [] }, 400],
      [{ content: 'x', messageId: 'msg_unknown' }, 404],
    ];
    for (const [body, status] of cases) {
      const res = await write(conversationId, body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(status);
      if (status === 400) expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    expect(
      (await write(conversationId, { content: '', messageId, isStreaming: false })).status,
    ).toBe(200);
    expect((await write(conversationId, { content: 'more', messageId })).status).toBe(409);
  });
});
