import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { verifyWebhook, type WebhookEvent } from '../../../src/webhooks/index.js';
import type { Emulator } from '../../../emulator/index.js';

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
export type Answer = { status?: number; headers?: Record<string, string>; body?: string | object; hang?: boolean };
export type Responder = (event: WebhookEvent, received: Received) => Answer | Promise<Answer>;

/** The default webhook: answers challenges correctly and everything else 200. */
export const answerProperly: Responder = (event) =>
  event.type === 'WEBHOOK_CHALLENGE' ? { body: { challenge: event.data.challenge } } : { body: { ok: true } };

/** A real webhook server on a free loopback port that records what it receives. */
export class WebhookServer {
  readonly received: Received[] = [];
  responder: Responder = answerProperly;
  private server!: Server;
  private waiters: Array<() => void> = [];
  url = '';

  static async start(responder?: Responder): Promise<WebhookServer> {
    const hook = new WebhookServer();
    if (responder) hook.responder = responder;
    hook.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const received: Received = { headers: req.headers, body, event: JSON.parse(body), at: Date.now() };
      hook.received.push(received);
      for (const wake of hook.waiters.splice(0)) wake();
      const answer = await hook.responder(received.event, received);
      if (answer.hang) return;
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status ?? 200, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json', ...answer.headers });
      res.end(text);
    });
    await new Promise<void>((resolve) => hook.server.listen(0, '127.0.0.1', resolve));
    hook.url = `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/webhook`;
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

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback URL on which nothing listens (a port that was free a moment ago). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/webhook`;
}

/** Calls the emulator over HTTP; returns status and parsed JSON body. */
export async function call(url: string, method: string, path: string, token?: string | null, body?: unknown, extraHeaders: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extraHeaders };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await request(url + path, { method: method as 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? (JSON.parse(text) as any) : null };
}

/** Calls the emulator's admin API (`/_emulator/…`) with its admin credential. */
export function adminCall(emu: Pick<Emulator, 'url' | 'adminHeaders'>, method: string, path: string, body?: unknown) {
  return call(emu.url, method, path, null, body, emu.adminHeaders);
}

/** Creates a plugin in an org and verifies its webhook; returns the plugin record (with its secret). */
export async function verifiedPlugin(
  emu: Emulator,
  token: string,
  orgId: string,
  fields: { type: string; webhookUrl: string; events?: string[]; scopes?: string[]; inputsSchema?: object; isPublic?: boolean; name?: string },
) {
  const created = await call(emu.url, 'POST', `/api/orgs/${orgId}/plugins`, token, { name: fields.name ?? 'Test plugin', events: [], scopes: [], ...fields });
  if (created.status !== 201) throw new Error(`plugin creation failed: ${JSON.stringify(created.body)}`);
  const verified = await call(emu.url, 'POST', `/api/plugins/${created.body.data.id}/verify-webhook`, token);
  if (verified.body?.data?.verified !== true) throw new Error(`verification failed: ${JSON.stringify(verified.body)}`);
  return { ...created.body.data, webhookUrlIsVerified: true } as { id: string; webhookSecret: string; orgId: string; [k: string]: unknown };
}

/** Verifies a received delivery with the plugin's secret (throws if it is not authentic). */
export function verifyReceived(received: Received, secret: string): WebhookEvent {
  return verifyWebhook(received.body, received.headers as Record<string, string>, secret);
}

/** Installs an instance through `path` and returns it with the access token its PLUGIN_INSTALLED carried. */
export async function install(emu: Emulator, hook: WebhookServer, token: string, path: string, body: Record<string, unknown>) {
  const installed = await call(emu.url, 'POST', path, token, body);
  if (installed.status !== 201) throw new Error(`install through ${path} failed: ${installed.status} ${JSON.stringify(installed.body)}`);
  const instance = installed.body.data as { id: string; [k: string]: unknown };
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: instance.id });
  const received = hook.ofType('PLUGIN_INSTALLED').find((r) => r.event.pluginInstanceId === instance.id);
  if (!received) throw new Error('the webhook did not receive PLUGIN_INSTALLED');
  return { instance, accessToken: (received.event.data as { accessToken: string }).accessToken, received };
}
