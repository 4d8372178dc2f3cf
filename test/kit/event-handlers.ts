import type { IncomingMessage, ServerResponse } from 'node:http';
import { createClient } from '../../src/client/index.js';
import {
  createWebhookHandler,
  type AgentMessageReceivedEvent,
  type WebhookEvent,
} from '../../src/shared/webhooks/index.js';
import { server } from './index.js';

/**
 * EVENT_HANDLER plugins' webhooks written for tests (`plugsmith check`'s, the dashboard's Trigger
 * view), each a real HTTP server (the kit's `server`): it keeps the token of PLUGIN_INSTALLED and
 * answers AGENT_MESSAGE_RECEIVED by writing a character message on the platform.
 * - correct: verifies every delivery (plugsmith/webhooks) and handles each event id once;
 * - careless: verifies nothing, handles every delivery again, and echoes the event in its answer;
 * - slow: correct, but handles one request at a time, each taking a while (a slow dependency);
 * - double-writes: verifies, but does the work again for a duplicate delivery.
 */
export type EventHandlerKind = 'correct' | 'careless' | 'slow' | 'double-writes';

/** A running event handler: its webhook URL, and the plugin's secret once the test sets it. */
export interface EventHandler {
  url: string;
  /** Set once the plugin exists (its secret comes with it). */
  secret: string;
  close(): Promise<void>;
}

/** How long the slow event handler takes over each request, one at a time. */
export const SLOW_MS = 120;

/** Starts an event handler of `kind` that writes its replies to the platform at `platformUrl`; closed by the kit. */
export async function startEventHandler(
  kind: EventHandlerKind,
  platformUrl: string,
): Promise<EventHandler> {
  const tokens = new Map<string, string>();
  const handled = new Set<string>();
  const idempotent = kind === 'correct' || kind === 'slow';

  async function messageReceived(event: AgentMessageReceivedEvent): Promise<object> {
    if (idempotent && handled.has(event.id)) return { ok: true, duplicate: true };
    const token = tokens.get(event.pluginInstanceId);
    if (!token) throw new Error(`no token for ${event.pluginInstanceId}`);
    const platform = createClient({ baseUrl: platformUrl, token, retries: 0 });
    try {
      const written = await platform.agentMessages.write(
        event.data.agentId,
        event.data.conversationId,
        { content: `Answer to ${event.data.message.id}`, isStreaming: false },
      );
      handled.add(event.id);
      return { ok: true, messageId: written.id };
    } finally {
      await platform.close();
    }
  }

  const on = {
    PLUGIN_INSTALLED: (event: Extract<WebhookEvent, { type: 'PLUGIN_INSTALLED' }>) =>
      void tokens.set(event.data.instance.id, event.data.accessToken),
    PLUGIN_UNINSTALLED: (event: Extract<WebhookEvent, { type: 'PLUGIN_UNINSTALLED' }>) =>
      void tokens.delete(event.data.instance.id),
    AGENT_MESSAGE_RECEIVED: messageReceived,
  };

  const handler: EventHandler = { url: '', secret: '', close: async () => undefined };
  let verifying: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | null = null;
  let queue = Promise.resolve();

  async function careless(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookEvent;
    let answer: object = { ok: true, received: event };
    try {
      if (event.type === 'WEBHOOK_CHALLENGE') answer = { challenge: event.data.challenge };
      else if (event.type === 'PLUGIN_INSTALLED') on.PLUGIN_INSTALLED(event);
      else if (event.type === 'PLUGIN_UNINSTALLED') on.PLUGIN_UNINSTALLED(event);
      else if (event.type === 'AGENT_MESSAGE_RECEIVED') await messageReceived(event);
    } catch {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  const http = await server((req, res) => {
    if (kind === 'careless') return void careless(req, res);
    // The secret is known only once the plugin exists, so the handler is made on first use.
    verifying ??= createWebhookHandler({ secret: handler.secret, on: on as never });
    if (kind !== 'slow') return void verifying(req, res);
    const handle = verifying;
    queue = queue.then(async () => {
      await new Promise((r) => setTimeout(r, SLOW_MS));
      await handle(req, res);
    });
  });
  handler.url = `${http.url}/webhook`;
  handler.close = http.close;
  return handler;
}
