import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import {
  answerChallenge,
  createWebhookHandler,
  generateWebhookSecret,
  handleWebhook,
  signWebhook,
  webhookHeaders,
  type PluginInstalledEvent,
  type WebhookEvent,
} from '../../src/shared/webhooks/index.js';
import { challenge, fileAdded, installed } from './fixtures/events.js';
import { server } from '../kit/index.js';
import { deliver, post } from './helpers.js';

const secret = generateWebhookSecret();

describe('createWebhookHandler on node:http', () => {
  it('answers WEBHOOK_CHALLENGE by itself', async () => {
    const { url } = await server(createWebhookHandler({ secret, on: {} }));
    const answer = await deliver(url, challenge, secret);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ challenge: 'ch_4f1c2d' });
  });

  it('calls the typed handler with the parsed event and answers { ok: true }', async () => {
    const seen: PluginInstalledEvent[] = [];
    const { url } = await server(
      createWebhookHandler({
        secret,
        on: {
          PLUGIN_INSTALLED(event) {
            seen.push(event);
          },
        },
      }),
    );
    const answer = await deliver(url, installed, secret);
    expect(answer).toMatchObject({ status: 200, body: { ok: true } });
    expect(seen).toEqual([installed]);
    expect(seen[0].data.accessToken).toBe('itok_secret');
  });

  it('sends back what an async handler returns', async () => {
    const { url } = await server(
      createWebhookHandler({
        secret,
        on: {
          async REPOSITORY_FILE_ADDED(event) {
            return { indexed: event.data.file.fileName };
          },
        },
      }),
    );
    expect(await deliver(url, fileAdded, secret)).toMatchObject({
      status: 200,
      body: { indexed: 'guide.pdf' },
    });
  });

  it('answers 200 to event kinds without a handler, and to kinds it does not know', async () => {
    const handler = vi.fn();
    const { url } = await server(
      createWebhookHandler({ secret, on: { PLUGIN_INSTALLED: handler } }),
    );
    expect(await deliver(url, fileAdded, secret)).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const future = JSON.stringify({ ...installed, id: 'evt_future', type: 'SOMETHING_NEW' });
    expect(await deliver(url, future, secret)).toMatchObject({ status: 200, body: { ok: true } });
    const sneaky = JSON.stringify({ ...installed, id: 'evt_proto', type: 'constructor' });
    expect(await deliver(url, sneaky, secret)).toMatchObject({ status: 200, body: { ok: true } });
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers 401 with a JSON error to a bad signature, and never calls the handler', async () => {
    const handler = vi.fn();
    const { url } = await server(
      createWebhookHandler({ secret, on: { PLUGIN_INSTALLED: handler } }),
    );
    const answer = await deliver(url, installed, generateWebhookSecret());
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      ok: false,
      error: { error: 'UNAUTHORIZED', message: expect.stringMatching(/no matching signature/) },
    });

    const unsigned = await post(url, JSON.stringify(installed), {
      'content-type': 'application/json',
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error.message).toBe('missing webhook-id header');
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers 401 to a replay outside the tolerance', async () => {
    const { url } = await server(createWebhookHandler({ secret, on: {}, toleranceSeconds: 60 }));
    const body = JSON.stringify(installed);
    const stale = webhookHeaders({
      id: installed.id,
      body,
      secret,
      timestamp: Math.floor(Date.now() / 1000) - 61,
    });
    const answer = await post(url, body, stale);
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toMatch(/too old/);
  });

  it('answers 500 when the handler throws, reports the error, and keeps its message private', async () => {
    const reported: Array<[unknown, WebhookEvent]> = [];
    const { url } = await server(
      createWebhookHandler({
        secret,
        on: {
          PLUGIN_INSTALLED() {
            throw new Error('database password is hunter2');
          },
        },
        onError: (error, event) => {
          reported.push([error, event]);
        },
      }),
    );
    const answer = await deliver(url, installed, secret);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({
      ok: false,
      error: { error: 'SERVER_ERROR', message: 'the PLUGIN_INSTALLED handler failed' },
    });
    expect(reported).toHaveLength(1);
    expect((reported[0][0] as Error).message).toBe('database password is hunter2');
    expect(reported[0][1]).toEqual(installed);
  });

  it('still answers 500 when onError itself throws', async () => {
    const { url } = await server(
      createWebhookHandler({
        secret,
        on: { PLUGIN_INSTALLED: async () => Promise.reject(new Error('down')) },
        onError: () => {
          throw new Error('logger down too');
        },
      }),
    );
    expect((await deliver(url, installed, secret)).status).toBe(500);
  });

  it('lets a challenge handler observe the challenge and still verifies the URL', async () => {
    const seen: string[] = [];
    const { url } = await server(
      createWebhookHandler({
        secret,
        on: { WEBHOOK_CHALLENGE: (event) => void seen.push(event.data.challenge) },
      }),
    );
    expect((await deliver(url, challenge, secret)).body).toEqual({ challenge: 'ch_4f1c2d' });
    expect(seen).toEqual(['ch_4f1c2d']);
  });

  it('answers 400 to a signed body that is not an event', async () => {
    const { url } = await server(createWebhookHandler({ secret, on: {} }));
    const answer = await deliver(url, 'not json', secret);
    expect(answer.status).toBe(400);
    expect(answer.body.error.error).toBe('VALIDATION_ERROR');
  });

  it('answers 405 to other methods', async () => {
    const { url } = await server(createWebhookHandler({ secret, on: {} }));
    const response = await request(url, { method: 'GET' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    await response.body.dump();
  });

  it('answers 413 to a body over the limit, streamed or declared', async () => {
    const { url } = await server(createWebhookHandler({ secret, on: {}, maxBodyBytes: 1000 }));
    const big = JSON.stringify({ ...installed, padding: 'x'.repeat(5000) });
    expect((await deliver(url, big, secret)).status).toBe(413);
    const chunked = await request(url, {
      method: 'POST',
      headers: webhookHeaders({ id: 'm', body: big, secret }),
      body: Readable.from(Array.from({ length: 5 }, (_, i) => big.slice(i * 1000, (i + 1) * 1000))),
    });
    expect(chunked.statusCode).toBe(413);
    expect(await chunked.body.json()).toMatchObject({ error: { error: 'PAYLOAD_TOO_LARGE' } });
  });

  it('uses a body a framework already read as req.rawBody or req.body', async () => {
    const handler = createWebhookHandler({
      secret,
      on: { PLUGIN_INSTALLED: (event) => ({ got: event.id }) },
    });
    const { url } = await server(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      if (req.url === '/raw') Object.assign(req, { rawBody: raw });
      if (req.url === '/text') Object.assign(req, { body: raw.toString() });
      if (req.url === '/buffer') Object.assign(req, { body: raw }); // what express.raw() leaves
      if (req.url === '/parsed') Object.assign(req, { body: JSON.parse(raw.toString()) });
      await handler(req, res);
    });
    expect((await deliver(`${url}/raw`, installed, secret)).body).toEqual({ got: 'evt_installed' });
    expect((await deliver(`${url}/text`, installed, secret)).body).toEqual({
      got: 'evt_installed',
    });
    expect((await deliver(`${url}/buffer`, installed, secret)).body).toEqual({
      got: 'evt_installed',
    });
    const parsed = await deliver(`${url}/parsed`, installed, secret);
    expect(parsed.status).toBe(500);
    expect(parsed.body.error.message).toMatch(/express\.raw/);
    const consumed = await deliver(`${url}/consumed`, installed, secret);
    expect(consumed.status).toBe(500);
    expect(consumed.body.error.message).toMatch(/already read/);
  });

  it('refuses a malformed secret when created', () => {
    expect(() => createWebhookHandler({ secret: 'whsec_???', on: {} })).toThrow(
      /invalid webhook secret/,
    );
    expect(() => createWebhookHandler({ secret: [], on: {} })).toThrow(/webhookSecret/);
  });
});

describe('handleWebhook', () => {
  it('works with fetch Headers and gives status and body', async () => {
    const body = JSON.stringify(challenge);
    const headers = new Headers(webhookHeaders({ id: challenge.id, body, secret }));
    expect(await handleWebhook(body, headers, { secret, on: {} })).toEqual({
      status: 200,
      body: answerChallenge(challenge),
    });
  });

  it('serves fastify with the raw-body parser shown in its doc comment', async () => {
    const seen: string[] = [];
    const options = {
      secret,
      on: { PLUGIN_INSTALLED: (event: PluginInstalledEvent) => void seen.push(event.id) },
    };
    const app = Fastify();
    app.register(async (scope) => {
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
        done(null, body),
      );
      scope.post('/webhooks', async (req, reply) => {
        const { status, body } = await handleWebhook(req.body as Buffer, req.headers, options);
        return reply.code(status).send(body);
      });
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect(await deliver(`${address}/webhooks`, installed, secret)).toMatchObject({
        status: 200,
        body: { ok: true },
      });
      expect(
        (await deliver(`${address}/webhooks`, installed, generateWebhookSecret())).status,
      ).toBe(401);
      expect(seen).toEqual(['evt_installed']);
    } finally {
      await app.close();
    }
  });

  it('serves express: mounted as it is, behind express.raw(), and says what to change behind express.json()', async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler({
      secret,
      on: { PLUGIN_INSTALLED: (event) => void seen.push(event.id) },
    });
    const app = express();
    app.post('/plain', handler);
    app.post('/raw', express.raw({ type: 'application/json' }), handler);
    app.post('/json', express.json(), handler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await deliver(`${url}/plain`, challenge, secret)).toMatchObject({
        status: 200,
        body: { challenge: 'ch_4f1c2d' },
      });
      expect(await deliver(`${url}/plain`, installed, secret)).toMatchObject({
        status: 200,
        body: { ok: true },
      });
      expect(await deliver(`${url}/raw`, installed, secret)).toMatchObject({
        status: 200,
        body: { ok: true },
      });
      expect((await deliver(`${url}/raw`, installed, generateWebhookSecret())).status).toBe(401);
      const parsed = await deliver(`${url}/json`, installed, secret);
      expect(parsed.status).toBe(500);
      expect(parsed.body.error.message).toMatch(/express\.raw/);
      expect(seen).toEqual(['evt_installed', 'evt_installed']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('verifies a delivery whose body has non-ASCII text byte for byte', async () => {
    const event = {
      ...installed,
      data: { ...installed.data, instance: { ...installed.data.instance, name: 'Indexeur été ✓' } },
    };
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook({ id: event.id, timestamp, body, secret }),
    };
    const { url } = await server(
      createWebhookHandler({
        secret,
        on: { PLUGIN_INSTALLED: (e) => ({ name: e.data.instance.name }) },
      }),
    );
    expect((await post(url, body, headers)).body).toEqual({ name: 'Indexeur été ✓' });
  });
});
