import { call, emulator } from '../../kit/index.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { verifiedPlugin } from '../../kit/webhook-server.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeoutMs: 2000, timeScale: 0.01 } });
});

/** A webhook server that answers challenges and counts requests and connections. */
function webhook(
  port = 0,
): Promise<{ server: Server; url: string; requests: number; connections: number }> {
  const state = { server: null as unknown as Server, url: '', requests: 0, connections: 0 };
  state.server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    state.requests++;
    const event = JSON.parse(body) as { type: string; data: { challenge?: string } };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        event.type === 'WEBHOOK_CHALLENGE' ? { challenge: event.data.challenge } : { ok: true },
      ),
    );
  });
  state.server.on('connection', () => state.connections++);
  return new Promise((resolve) =>
    state.server.listen(port, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/webhook`;
      resolve(state);
    }),
  );
}

it('reuses connections between deliveries, and a target restarted on the same port still gets the next one on its first attempt', async () => {
  let hook = await webhook();
  const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    events: ['PLUGIN_INSTALLED'],
  });
  const install = () =>
    call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'h',
        pluginId: plugin.id,
        events: ['PLUGIN_INSTALLED'],
        scopes: [],
      },
    });
  for (let i = 0; i < 5; i++) {
    const created = await install();
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: created.body.data.id });
  }
  expect(hook.requests).toBe(6); // the challenge and five installs
  expect(hook.connections).toBeLessThan(hook.requests);

  // The target restarts on the same port: the emulator's kept-alive socket is now stale.
  const port = Number(new URL(hook.url).port);
  hook.server.closeAllConnections();
  await new Promise<void>((resolve) => hook.server.close(() => resolve()));
  hook = await webhook(port);
  const created = await install();
  const delivery = await emu.waitForDelivery({
    type: 'PLUGIN_INSTALLED',
    pluginInstanceId: created.body.data.id,
  });
  expect(delivery.attempts).toHaveLength(1);
  expect(delivery.attempts[0].responseStatus).toBe(200);
  hook.server.closeAllConnections();
  hook.server.close();
});

it('a send whose connection was closed before an answer, and whose resend failed otherwise, tells both', async () => {
  let events = 0;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const event = JSON.parse(body) as { type: string; data: { challenge?: string } };
    if (event.type === 'WEBHOOK_CHALLENGE') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ challenge: event.data.challenge }));
      return;
    }
    events++;
    // The first send: closed with the request in hand. The resend: an answer that is not HTTP. Then a good answer.
    if (events === 1) req.socket.destroy();
    else if (events === 2) req.socket.end('garbage\r\n\r\n');
    else res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: `${origin}/webhook`,
      events: ['PLUGIN_INSTALLED'],
    });
    const created = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
      bearer: TOKENS.member,
      body: { name: 'h', pluginId: plugin.id, events: ['PLUGIN_INSTALLED'], scopes: [] },
    });
    const delivery = await emu.waitForDelivery({
      type: 'PLUGIN_INSTALLED',
      pluginInstanceId: created.body.data.id,
    });
    expect(delivery.attempts.map((a) => a.responseStatus)).toEqual([null, 200]);
    expect(delivery.attempts[0].error).toMatch(
      new RegExp(
        `^the connection to ${origin.replaceAll('.', '\\.')} was closed before an answer; sent again on a new connection: request failed: .+`,
      ),
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
