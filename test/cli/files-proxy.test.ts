import { createServer, request as forward, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ORG, useCliEnv } from '../kit/cli-env.js';

// `plugsmith files upload` behind what sits between a CLI and a platform in practice: a proxy or
// gateway that refuses a GET with a body (as Prism does, 501), and a platform with only the spec's
// GET form of /api/generate-upload-url (its POST a 405). Real proxies on real ports, the CLI unmocked.

const t = useCliEnv();
const parent = ['--parent-type', 'ORG', '--parent-id', ORG];
const proxies: Server[] = [];

afterAll(async () => {
  for (const proxy of proxies) {
    proxy.closeAllConnections();
    proxy.close();
  }
});

/** Whether a request carries a body (a length above zero, or chunks). */
function hasBody(request: IncomingMessage): boolean {
  const length = Number(request.headers['content-length'] ?? '0');
  return length > 0 || request.headers['transfer-encoding'] !== undefined;
}

/** A proxy in front of the emulator: `refuse` answers a request itself (status) or passes it on (undefined); `seen` logs each request. */
async function proxy(refuse: (request: IncomingMessage) => number | undefined) {
  const seen: string[] = [];
  const target = new URL(t.emu.url);
  const server = createServer((request, response) => {
    const status = refuse(request);
    seen.push(`${request.method} ${request.url} ${status ?? 'passed'}`);
    if (status !== undefined) {
      request.resume();
      response.writeHead(status, { 'content-type': 'text/plain' }).end(`refused by the proxy\n`);
      return;
    }
    const upstream = forward(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: target.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxies.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen };
}

async function files(prefix: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const path = join(t.dir, `${prefix}-${i}.txt`);
    await writeFile(path, `${prefix} ${i}\n`);
    paths.push(path);
  }
  return paths;
}

describe('plugsmith files upload through proxies', { timeout: 120_000 }, () => {
  test('behind a proxy that refuses a GET with a body (501), the upload works: it asks with POST', async () => {
    const dropsGetBodies = await proxy((request) =>
      request.method === 'GET' && hasBody(request) ? 501 : undefined,
    );
    const paths = await files('proxied', 2);
    const run = await t.cli(
      ['files', 'upload', ...paths, ...parent, '--folder', 'proxy/post', '--json'],
      { PLUGSMITH_BASE_URL: dropsGetBodies.url },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).map((o: { status: string }) => o.status)).toEqual([
      'UPLOADED',
      'UPLOADED',
    ]);
    expect(dropsGetBodies.seen).toContain('POST /api/generate-upload-url passed');
    expect(dropsGetBodies.seen.filter((line) => line.endsWith(' 501'))).toEqual([]);
  });

  test('against a platform with only the GET form (its POST a 405 or a 404), the upload asks again with GET and works', async () => {
    for (const status of [405, 404]) {
      const getOnly = await proxy((request) =>
        request.method === 'POST' && request.url === '/api/generate-upload-url'
          ? status
          : undefined,
      );
      const [path] = await files(`get-only-${status}`, 1);
      const run = await t.cli(
        ['files', 'upload', path, ...parent, '--folder', `proxy/get${status}`, '--json'],
        { PLUGSMITH_BASE_URL: getOnly.url },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)[0].status).toBe('UPLOADED');
      expect(getOnly.seen.filter((line) => line.includes('/api/generate-upload-url'))).toEqual([
        `POST /api/generate-upload-url ${status}`,
        'GET /api/generate-upload-url passed',
      ]);
      const listed = await t.json([
        'files',
        'list',
        ...parent,
        '--filter',
        `folder=proxy/get${status}`,
      ]);
      expect(listed).toHaveLength(1);
    }
  });

  test('a refusal of the POST that is not "no such form" (a 400) is reported as it is, never asked again with GET', async () => {
    const forwarded = await proxy(() => undefined);
    const bad = join(t.dir, 'bad:name.txt');
    await writeFile(bad, 'x');
    const run = await t.cli(['files', 'upload', bad, ...parent, '--json'], {
      PLUGSMITH_BASE_URL: forwarded.url,
    });
    expect(run.code).toBe(5);
    expect(forwarded.seen.filter((line) => line.includes('/api/generate-upload-url'))).toEqual([
      'POST /api/generate-upload-url passed',
    ]);
  });
});
