import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookHeaders } from '../../src/shared/webhooks/index.js';

// The generated project's own webhook module (templates/common/src/webhooks.ts, on the
// `standardwebhooks` library), served on a real port and sent deliveries signed with this
// package's signer: what `plugsmith check` does not reach (several secrets, a handler that throws,
// bodies that are not events, methods and sizes). Loaded by URL, as the project's code is not
// part of this package's build.

interface TemplateWebhooks {
  createWebhookHandler(options: {
    secret: string | string[];
    on: Record<string, (event: { id: string; type: string; data: any }) => unknown>;
    onError?: (error: unknown, event: { id: string; type: string }) => void;
    onHandled?: (event: { id: string; type: string }, ms: number) => void;
    onRefused?: (webhookId: string, reason: string) => void;
    onDuplicate?: (webhookId: string) => void;
    maxBodyBytes?: number;
  }): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

interface TemplateServer {
  startWebhookServer(options: {
    port: number;
    host: string;
    secret: string;
    on: Record<string, never>;
    socketTimeoutMs?: number;
  }): Promise<{ webhookUrl: string; port: number; close(): Promise<void> }>;
}

const SERVER_MODULE = pathToFileURL(
  join(resolve(import.meta.dirname, '../..'), 'templates/common/src/server.ts'),
).href;
const MODULE = pathToFileURL(
  join(resolve(import.meta.dirname, '../..'), 'templates/common/src/webhooks.ts'),
).href;
const NEW = generateWebhookSecret();
const OLD = generateWebhookSecret();
const OTHER = generateWebhookSecret();

const errors: unknown[] = [];
const handled: string[] = [];
const refused: Array<[string, string]> = [];
const duplicates: string[] = [];
const seen: string[] = [];
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const { createWebhookHandler } = (await import(MODULE)) as TemplateWebhooks;
  const webhook = createWebhookHandler({
    secret: [NEW, OLD],
    maxBodyBytes: 4096,
    on: {
      AGENT_MESSAGE_RECEIVED: (event) => {
        seen.push(event.id);
        if (event.data.fail) throw new Error('database down: postgres://user:hunter2@db');
        return event.data.answer;
      },
      WEBHOOK_CHALLENGE: (event) => void seen.push(event.id),
    },
    onError: (error) => errors.push(error),
    onHandled: (event) => handled.push(event.id),
    onRefused: (webhookId, reason) => refused.push([webhookId, reason]),
    onDuplicate: (webhookId) => duplicates.push(webhookId),
  });
  const server = createServer((req, res) => void webhook(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  close = () => new Promise((done) => server.close(() => done()));
});

afterAll(() => close?.());

let counter = 0;
/** POSTs `body` (an event, or raw text) signed with `secrets` (none: unsigned). */
async function deliver(
  body: unknown,
  secrets: string[] = [NEW],
  extra: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const id = `msg_${++counter}`;
  const headers: Record<string, string> = secrets.length
    ? { ...webhookHeaders({ id, body: text, secret: secrets }) }
    : {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      };
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, ...extra },
    body: text,
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

function event(type: string, data: object, id = `evt_${++counter}`) {
  return {
    id,
    type,
    createdAt: new Date().toISOString(),
    pluginId: 'plg_1',
    pluginInstanceId: 'pin_1',
    orgId: 'org_1',
    data,
  };
}

/** POSTs `text` with exactly these headers (a captured delivery sent again). */
async function send(
  headers: Record<string, string>,
  text: string,
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers, body: text });
  return { status: response.status, body: await response.json() };
}

describe("the generated project's webhook module", () => {
  it('accepts a delivery signed with any secret of its list (a rotation), and refuses one signed with neither before any work', async () => {
    expect(
      await deliver(event('AGENT_MESSAGE_RECEIVED', { answer: { by: 'new' } }), [NEW]),
    ).toMatchObject({ status: 200, body: { by: 'new' } });
    expect(
      await deliver(event('AGENT_MESSAGE_RECEIVED', { answer: { by: 'old' } }), [OLD]),
    ).toMatchObject({ status: 200, body: { by: 'old' } });
    const refused = event('AGENT_MESSAGE_RECEIVED', { answer: { by: 'other' } });
    const answer = await deliver(refused, [OTHER]);
    expect(answer).toMatchObject({
      status: 401,
      body: { ok: false, error: { error: 'UNAUTHORIZED' } },
    });
    expect(await deliver(refused, [])).toMatchObject({ status: 401 });
    expect(seen).not.toContain(refused.id);
  });

  it('answers WEBHOOK_CHALLENGE with { challenge } when its handler only observes, and an unhandled type with { ok: true }', async () => {
    const challenge = event('WEBHOOK_CHALLENGE', { challenge: 'chl_123' });
    expect(await deliver(challenge)).toMatchObject({ status: 200, body: { challenge: 'chl_123' } });
    expect(seen).toContain(challenge.id);
    expect(await deliver(event('SOMETHING_NEW', {}))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    // A type named like an Object.prototype member reaches no handler.
    expect(await deliver(event('constructor', {}))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect(await deliver(event('AGENT_MESSAGE_RECEIVED', {}))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  it('answers 500 when a handler throws, so the platform retries, without the error in the answer; onError hears of it', async () => {
    const failing = event('AGENT_MESSAGE_RECEIVED', { fail: true });
    const answer = await deliver(failing);
    expect(answer).toEqual({
      status: 500,
      body: {
        ok: false,
        error: { error: 'SERVER_ERROR', message: 'the AGENT_MESSAGE_RECEIVED handler failed' },
      },
      headers: expect.anything(),
    });
    expect(JSON.stringify(answer.body)).not.toContain('hunter2');
    expect(errors.map((e) => (e as Error).message)).toContain(
      'database down: postgres://user:hunter2@db',
    );
    expect(handled).not.toContain(failing.id);
  });

  it('refuses a signed body that is not an event with 400, another method with 405, and a body over the limit with 413', async () => {
    expect(await deliver('not json')).toMatchObject({
      status: 400,
      body: { error: { error: 'VALIDATION_ERROR' } },
    });
    expect(await deliver({ type: 'AGENT_MESSAGE_RECEIVED' })).toMatchObject({
      status: 400,
      body: { error: { error: 'VALIDATION_ERROR' } },
    });
    expect(await deliver('[1,2]')).toMatchObject({ status: 400 });
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(
      await deliver(event('AGENT_MESSAGE_RECEIVED', { padding: 'x'.repeat(5000) })),
    ).toMatchObject({ status: 413, body: { error: { error: 'PAYLOAD_TOO_LARGE' } } });
  });

  it('refuses a mistyped secret when it is created, not at the first delivery', async () => {
    const { createWebhookHandler } = (await import(MODULE)) as TemplateWebhooks;
    expect(() => createWebhookHandler({ secret: 'whsec_not base64!', on: {} })).toThrow(
      /invalid webhook secret/,
    );
    expect(() => createWebhookHandler({ secret: [], on: {} })).toThrow(/webhookSecret/);
  });

  it('handles a delivery replayed within the window once: the same answer again, the handler not run twice', async () => {
    const delivery = event('AGENT_MESSAGE_RECEIVED', { answer: { reply: 'msg_1' } });
    const text = JSON.stringify(delivery);
    const headers = webhookHeaders({ id: `msg_replayed_${++counter}`, body: text, secret: [NEW] });
    expect(await send(headers, text)).toEqual({ status: 200, body: { reply: 'msg_1' } });
    // Sent again as captured, and twice at once: answered 2xx with the first answer, handled once.
    const again = await Promise.all([send(headers, text), send(headers, text)]);
    expect(again).toEqual([
      { status: 200, body: { reply: 'msg_1' } },
      { status: 200, body: { reply: 'msg_1' } },
    ]);
    expect(seen.filter((id) => id === delivery.id)).toHaveLength(1);
    expect(duplicates.filter((id) => id === headers['webhook-id'])).toHaveLength(2);

    // The platform's retry of a delivery whose handler failed (500) does the work again.
    const failing = event('AGENT_MESSAGE_RECEIVED', { fail: true });
    const failingText = JSON.stringify(failing);
    const failingHeaders = webhookHeaders({
      id: `msg_failing_${++counter}`,
      body: failingText,
      secret: [NEW],
    });
    expect((await send(failingHeaders, failingText)).status).toBe(500);
    expect((await send(failingHeaders, failingText)).status).toBe(500);
    expect(seen.filter((id) => id === failing.id)).toHaveLength(2);
  });

  it('refuses a webhook-timestamp of other than ASCII digits with 400, and tells onRefused why a delivery was refused, never the secret', async () => {
    const delivery = event('AGENT_MESSAGE_RECEIVED', { answer: { by: 'superscript' } });
    for (const timestamp of ['\u00b2', '1e9', '-1', '12a']) {
      const answer = await deliver(delivery, [NEW], { 'webhook-timestamp': timestamp });
      expect(answer, timestamp).toMatchObject({
        status: 400,
        body: { ok: false, error: { error: 'VALIDATION_ERROR' } },
      });
    }
    expect(seen).not.toContain(delivery.id);

    refused.length = 0;
    await deliver(event('AGENT_MESSAGE_RECEIVED', {}), [OTHER]);
    await deliver(event('AGENT_MESSAGE_RECEIVED', {}), []);
    expect(refused).toHaveLength(2);
    expect(refused[0][0]).toMatch(/^msg_/);
    expect(refused[0][1]).toContain("no signature made with this plugin's secret");
    expect(JSON.stringify(refused)).not.toContain(NEW.slice(6));
    expect(JSON.stringify(refused)).not.toContain(OTHER.slice(6));
  });

  it("the project's server closes idle and half-sent connections, and answers a Content-Length of other than digits 400", async () => {
    const { startWebhookServer } = (await import(SERVER_MODULE)) as TemplateServer;
    const server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      secret: NEW,
      on: {},
      socketTimeoutMs: 500,
    });
    try {
      const exchange = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(server.port, '127.0.0.1', () => socket.write(request, 'latin1'));
          let received = '';
          socket.on('data', (chunk) => (received += chunk));
          socket.on('close', () => resolve(received.split('\r\n')[0] || 'closed'));
          socket.on('error', reject);
          socket.setTimeout(20_000, () => reject(new Error(`still open: ${request}`)));
        });
      expect(await exchange('')).toBe('HTTP/1.1 408 Request Timeout');
      expect(await exchange('POST /webhook HTTP/1.1\r\nHost: plug')).toBe(
        'HTTP/1.1 408 Request Timeout',
      );
      expect(
        await exchange('POST /webhook HTTP/1.1\r\nHost: plugin\r\nContent-Length: \u00b2\r\n\r\n'),
      ).toBe('HTTP/1.1 400 Bad Request');
      expect((await fetch(server.webhookUrl.replace('/webhook', '/health'))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
