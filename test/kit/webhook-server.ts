import type { IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { verifyWebhook, type WebhookEvent } from '../../src/shared/webhooks/index.js';
import type { Emulator } from '../../emulator/index.js';
import { call } from './http.js';
import { receiver, type Receiver } from './index.js';
import { until, type UntilOptions } from './until.js';

// A plugin's webhook as the emulator's deliveries meet it: the kit's receiver with each request's
// event parsed, an answer a test can change between deliveries, and bounded waits for deliveries.

/** One request a webhook server received. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  event: WebhookEvent;
  at: number;
}

/** What the webhook answers: status, headers, body; `hang` never answers. */
export type Answer = {
  status?: number;
  headers?: Record<string, string>;
  body?: string | object;
  hang?: boolean;
};
export type Responder = (event: WebhookEvent, received: Received) => Answer | Promise<Answer>;

/** The default webhook: answers challenges correctly and everything else 200. */
export const answerProperly: Responder = (event) =>
  event.type === 'WEBHOOK_CHALLENGE'
    ? { body: { challenge: event.data.challenge } }
    : { body: { ok: true } };

/** A real webhook server on a free loopback port that records what it receives (the kit's receiver, closed by the kit). */
export class WebhookServer {
  readonly received: Received[] = [];
  responder: Responder = answerProperly;
  private receiver!: Receiver;
  url = '';

  static async start(responder?: Responder): Promise<WebhookServer> {
    const hook = new WebhookServer();
    if (responder) hook.responder = responder;
    hook.receiver = await receiver(async (request, res) => {
      const received: Received = {
        headers: request.headers,
        body: request.body,
        event: JSON.parse(request.body),
        at: Date.now(),
      };
      hook.received.push(received);
      const answer = await hook.responder(received.event, received);
      if (answer.hang) return;
      const text =
        typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status ?? 200, {
        'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json',
        ...answer.headers,
      });
      res.end(text);
    });
    hook.url = hook.receiver.webhookUrl;
    return hook;
  }

  /** Events of one kind received so far. */
  ofType(type: string): Received[] {
    return this.received.filter((r) => r.event.type === type);
  }

  /**
   * Resolves once `count` requests (optionally of one kind) have arrived, with those of that kind so far; gives up at the
   * bound (the kit's `until`, 60 s unless `options` say otherwise) naming what it waited for and what did arrive.
   */
  waitFor(count: number, type?: string, options: UntilOptions = {}): Promise<Received[]> {
    const got = () => (type ? this.ofType(type) : this.received);
    return until(
      `${count} ${type ?? 'request'}${count === 1 ? '' : 's'} at the webhook ${this.url}`,
      () => (got().length >= count ? got() : undefined),
      {
        // Close to the moment of arrival: tests look at what the emulator does while a delivery is in flight.
        intervalMs: 5,
        explain: () =>
          `received: ${this.received.map((r) => r.event.type).join(', ') || 'nothing'}`,
        ...options,
      },
    );
  }

  close(): Promise<void> {
    return this.receiver.close();
  }
}

/** Creates a plugin in an org and verifies its webhook; returns the plugin record (with its secret). */
export async function verifiedPlugin(
  emu: Emulator,
  token: string,
  orgId: string,
  fields: {
    type: string;
    webhookUrl: string;
    events?: string[];
    scopes?: string[];
    inputsSchema?: object;
    isPublic?: boolean;
    name?: string;
  },
) {
  const created = await call(emu.url, 'POST', `/api/orgs/${orgId}/plugins`, {
    bearer: token,
    body: { name: fields.name ?? 'Test plugin', events: [], scopes: [], ...fields },
  });
  if (created.status !== 201)
    throw new Error(`plugin creation failed: ${JSON.stringify(created.body)}`);
  const verified = await call(
    emu.url,
    'POST',
    `/api/plugins/${created.body.data.id}/verify-webhook`,
    {
      bearer: token,
    },
  );
  if (verified.body?.data?.verified !== true)
    throw new Error(`verification failed: ${JSON.stringify(verified.body)}`);
  return { ...created.body.data, webhookUrlIsVerified: true } as {
    id: string;
    webhookSecret: string;
    orgId: string;
    [k: string]: unknown;
  };
}

/** A DATA_PROVIDER plugin of the default seed's org_dev (through `POST /api/plugins`, as its OWNER) with a verified webhook at `hook`; returns its id. */
export async function verifiedDataProvider(emu: Emulator, hook: WebhookServer): Promise<string> {
  const plugin = await call(emu.url, 'POST', '/api/plugins', {
    token: emu.token!,
    body: {
      orgId: 'org_dev',
      name: 'Docs indexer',
      type: 'DATA_PROVIDER',
      events: ['REPOSITORY_FILE_ADDED'],
      scopes: ['REPOSITORY_FILES_READ'],
      webhookUrl: hook.url,
    },
  });
  expect(plugin.status).toBe(201);
  const verified = await call(
    emu.url,
    'POST',
    `/api/plugins/${plugin.body.data.id}/verify-webhook`,
    {
      token: emu.token!,
    },
  );
  expect(verified.body.data.verified).toBe(true);
  return plugin.body.data.id;
}

/** Verifies a received delivery with the plugin's secret (throws if it is not authentic). */
export function verifyReceived(received: Received, secret: string): WebhookEvent {
  return verifyWebhook(received.body, received.headers as Record<string, string>, secret);
}

/** Installs an instance through `path` and returns it with the access token its PLUGIN_INSTALLED carried. */
export async function install(
  emu: Emulator,
  hook: WebhookServer,
  token: string,
  path: string,
  body: Record<string, unknown>,
) {
  const installed = await call(emu.url, 'POST', path, { bearer: token, body });
  if (installed.status !== 201)
    throw new Error(
      `install through ${path} failed: ${installed.status} ${JSON.stringify(installed.body)}`,
    );
  const instance = installed.body.data as { id: string; [k: string]: unknown };
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: instance.id });
  const received = hook
    .ofType('PLUGIN_INSTALLED')
    .find((r) => r.event.pluginInstanceId === instance.id);
  if (!received) throw new Error('the webhook did not receive PLUGIN_INSTALLED');
  return {
    instance,
    accessToken: (received.event.data as { accessToken: string }).accessToken,
    received,
  };
}
