import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { own } from '../kit/index.js';
import { ORG, useCliEnv } from '../kit/cli-env.js';

// The CLI sends directly with node:http and loads undici only when a proxy variable is set
// (src/client/client.ts): a set HTTP_PROXY must still route every call of the spawned CLI through the proxy.

/** A forward proxy on a free port: relays absolute-URL requests to their origin and records each request line. */
async function forwardProxy(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((incoming: IncomingMessage, answer) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    const relay = request(incoming.url ?? '', {
      method: incoming.method,
      headers: incoming.headers,
    });
    relay.on('response', (origin) => {
      answer.writeHead(origin.statusCode ?? 502, origin.headers);
      origin.pipe(answer);
    });
    relay.on('error', () => answer.writeHead(502).end('proxy: origin unreachable'));
    incoming.pipe(relay);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  own(async () => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen };
}

const t = useCliEnv({ run: runCli });

/** Proxy variables cleared, so that the machine's own settings take no part. */
const NO_PROXY_VARIABLES = {
  HTTP_PROXY: '',
  http_proxy: '',
  HTTPS_PROXY: '',
  https_proxy: '',
  NO_PROXY: '',
  no_proxy: '',
};

describe('proxy variables', () => {
  test('with HTTP_PROXY set, plugins list goes through the proxy and still answers', async () => {
    const proxy = await forwardProxy();
    const run = await t.cli(['plugins', 'list', '--org', ORG, '--json'], {
      ...NO_PROXY_VARIABLES,
      HTTP_PROXY: proxy.url,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(proxy.seen).toEqual([
      expect.stringMatching(`^GET ${t.emu.url}/api/orgs/${ORG}/plugins`),
    ]);
  });

  test('the lowercase http_proxy counts too, and NO_PROXY sends a host past the proxy', async () => {
    const proxy = await forwardProxy();
    const proxied = await t.cli(['plugins', 'list', '--org', ORG, '--json'], {
      ...NO_PROXY_VARIABLES,
      http_proxy: proxy.url,
    });
    expect(proxied.code, proxied.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(1);
    const direct = await t.cli(['plugins', 'list', '--org', ORG, '--json'], {
      ...NO_PROXY_VARIABLES,
      HTTP_PROXY: proxy.url,
      NO_PROXY: '127.0.0.1',
    });
    expect(direct.code, direct.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(1);
  });

  test('without a proxy variable nothing goes to a proxy', async () => {
    const proxy = await forwardProxy();
    const run = await t.cli(['plugins', 'list', '--org', ORG, '--json'], NO_PROXY_VARIABLES);
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
  });
});
