import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventShapes } from './event-shapes.js';
import { createWebhookHandler, type WebhookHandlers } from './webhooks.js';

/** A running webhook server. */
export interface WebhookServer {
  /** Where the platform posts events: http://host:port/webhook. */
  webhookUrl: string;
  port: number;
  close(): Promise<void>;
}

/** A webhook-id as the log shows it: quoted, control characters escaped, at most 100 characters. */
function shown(webhookId: string): string {
  return webhookId === '' ? '(no webhook-id)' : JSON.stringify(webhookId.slice(0, 100));
}

/**
 * Serves POST /webhook on node:http: `createWebhookHandler` (src/webhooks.ts) checks each delivery's
 * signature (Standard Webhooks) with the plugin's secret (any of several during a rotation), answers
 * WEBHOOK_CHALLENGE, and runs the handler of the event's kind. A handler that throws answers 500, so
 * the platform retries the delivery. GET /health answers 200 for whoever waits for the server to be
 * up (a load balancer, a container's health check, `plugsmith dev`).
 */
export async function startWebhookServer(options: {
  port: number;
  host: string;
  secret: string | string[];
  on: WebhookHandlers;
  log?: (line: string) => void;
  /** A connection whose request headers take longer is closed (408), and one whose whole request takes twice as long. Default 15 s. */
  socketTimeoutMs?: number;
  /** PLUGSMITH_EVENT_SHAPES: a file to keep the shape of every verified event in (src/event-shapes.ts). */
  eventShapes?: string;
}): Promise<WebhookServer> {
  const log = options.log;
  const shapes = options.eventShapes ? new EventShapes(options.eventShapes) : undefined;
  const webhook = createWebhookHandler({
    secret: options.secret,
    on: options.on,
    onHandled: (event, ms) => {
      log?.(`${new Date().toISOString()} ${event.type} ${event.id} handled in ${ms} ms`);
      shapes?.add(event);
    },
    // A refused delivery leaves a line, so a wrong secret can be seen from the plugin's side too (never the secret).
    onRefused:
      log &&
      ((webhookId, reason) =>
        log(`${new Date().toISOString()} refused delivery ${shown(webhookId)}: ${reason}`)),
    onDuplicate:
      log &&
      ((webhookId) =>
        log(
          `${new Date().toISOString()} delivery ${shown(webhookId)} was handled already: answered again, not handled twice`,
        )),
    // Every failure, with its event id, webhook-id and stack: plugsmith links these lines to the delivery attempt.
    onError: (error, event, webhookId) => {
      console.error(`${event.type} ${event.id} failed (webhook-id ${shown(webhookId)}):`, error);
    },
  });
  // Node's defaults let an idle or half-sent connection hold a socket for a minute or more.
  const socketTimeoutMs = options.socketTimeoutMs ?? 15_000;
  const timeouts = {
    headersTimeout: socketTimeoutMs,
    requestTimeout: 2 * socketTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, socketTimeoutMs),
  };
  const server = createServer(timeouts, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://plugin').pathname;
    if (path === '/webhook') return void webhook(req, res);
    if (path === '/health' && req.method === 'GET')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(
        '{"ok":false,"error":{"error":"NOT_FOUND","message":"the webhook is at POST /webhook"}}',
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    webhookUrl: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/webhook`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
