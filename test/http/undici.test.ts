import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  createAgent,
  createEnvHttpProxyAgent,
  request,
  UNDICI_DEEP_MODULES,
  UNDICI_LINE,
} from '../../src/shared/http/undici.js';
import { receiver } from '../kit/index.js';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};

describe('the undici shim', () => {
  it('relies on the undici line that package.json pins and that is installed', () => {
    expect(pkg.dependencies.undici).toMatch(
      new RegExp(`^~${UNDICI_LINE.replace('.', '\\.')}\\.\\d+$`),
    );
    const installed = (require('undici/package.json') as { version: string }).version;
    expect(
      installed.startsWith(`${UNDICI_LINE}.`),
      `undici ${installed} is not the ${UNDICI_LINE} line the shim was checked against`,
    ).toBe(true);
  });

  it("finds undici's internal modules where it requires them, with the exports it uses", () => {
    expect(typeof require(UNDICI_DEEP_MODULES.request)).toBe('function');
    expect(typeof require(UNDICI_DEEP_MODULES.agent)).toBe('function');
    expect(typeof require(UNDICI_DEEP_MODULES.envHttpProxyAgent)).toBe('function');
  });

  it('sends a real request through an Agent and through the proxy-aware agent', async () => {
    const server = await receiver(
      (req, res) =>
        void res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url}`),
    );
    const url = `${server.url}/hello?x=1`;
    for (const dispatcher of [createAgent(), createEnvHttpProxyAgent({ noProxy: '127.0.0.1' })]) {
      const answer = await request(url, { dispatcher });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.text()).toBe('GET /hello?x=1');
      await dispatcher.close();
    }
  });
});
