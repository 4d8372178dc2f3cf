import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, onTestFinished, test } from 'vitest';
import { identifyTarget } from '../../src/manifest/target.js';
import { emulatorRunningAt } from '../kit/emulator-state.js';

describe('the target of a deploy', () => {
  test('a running emulator is recognised by its store however its URL is spelled (case, host name, trailing slash)', async () => {
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ ok: true, data: { storeId: 'st_devbox' } }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
    const { port } = server.address() as AddressInfo;
    await emulatorRunningAt(`http://127.0.0.1:${port}`);

    for (const url of [
      `http://127.0.0.1:${port}`,
      `http://LOCALHOST:${port}/`,
      `HTTP://localhost:${port}//`,
    ]) {
      expect(await identifyTarget(url), url).toEqual({ storeId: 'st_devbox', baseUrl: url });
    }
    expect(asked).toEqual(Array(3).fill('GET /_emulator/health'));
    // Neither local nor a running emulator: nothing is asked.
    expect(await identifyTarget('http://other.test')).toEqual({
      storeId: null,
      baseUrl: 'http://other.test',
    });
    expect(asked).toHaveLength(3);
  });

  test('an emulator that answers something else, or nothing, gives no store id', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/_emulator/health' && request.headers.host?.startsWith('127.'))
        response.end('not json');
      // Otherwise never answers.
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => {
      server.closeAllConnections();
      return new Promise<void>((done) => server.close(() => done()));
    });
    const { port } = server.address() as AddressInfo;
    expect(await identifyTarget(`http://127.0.0.1:${port}`)).toEqual({
      storeId: null,
      baseUrl: `http://127.0.0.1:${port}`,
    });
    // A server that never answers is given up on after 3 s (the test's own timeout would end a wait without end).
    expect(await identifyTarget(`http://localhost:${port}`)).toEqual({
      storeId: null,
      baseUrl: `http://localhost:${port}`,
    });
  });
});
