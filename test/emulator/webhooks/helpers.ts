import type { IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { verifyWebhook, type WebhookEvent } from '../../../src/shared/webhooks/index.js';
import type { Emulator } from '../../../emulator/index.js';
import { call, receiver, type Receiver } from '../../kit/index.js';

/** The seed with a user of every role (fixtures/roles-seed.json); its tokens are named below. */
export const ROLES_SEED = fileURLToPath(new URL('./fixtures/roles-seed.json', import.meta.url));
export const TOKENS = {
  owner: 'tok_owner_all',
  member: 'tok_member_all',
  viewer: 'tok_viewer_all',
  outsider: 'tok_outsider_all',
  ownerLimitedToAcme: 'tok_owner_acme',
  ownerLimitedToOther: 'tok_owner_other',
} as const;

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
  private waiters: Array<() => void> = [];
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
      for (const wake of hook.waiters.splice(0)) wake();
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

  /** Resolves once `count` requests (optionally of one kind) have arrived. */
  async waitFor(count: number, type?: string): Promise<Received[]> {
    const got = () => (type ? this.ofType(type) : this.received);
    while (got().length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return got();
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
