import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it, onTestFinished } from 'vitest';
import { request } from '../../src/shared/http/request.js';
import { createAgent } from '../../src/shared/http/undici.js';
import { receiver } from '../kit/index.js';

/** A server that answers every request with what it received: method, URL, content-length and body. */
async function echo() {
  return receiver((got, res) => {
    const answer = JSON.stringify({
      method: got.method,
      url: got.url,
      length: got.headers['content-length'],
      body: got.body,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo': 'yes' }).end(answer);
  });
}

function agent() {
  const dispatcher = createAgent();
  onTestFinished(() => dispatcher.close());
  return dispatcher;
}

// Both ways the client sends: directly with node:http, and through an undici dispatcher (a proxy agent, a caller's agent).
const ways = [
  { name: 'directly', dispatcher: () => undefined },
  { name: 'through an undici dispatcher', dispatcher: agent },
];

describe.each(ways)('request, $name', ({ dispatcher }) => {
  it('sends a GET and returns status, headers and the unread body', async () => {
    const server = await echo();
    const answer = await request(`${server.url}/hello?x=1`, {
      method: 'GET',
      headers: {},
      dispatcher: dispatcher(),
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['x-echo']).toBe('yes');
    expect(JSON.parse(await text(answer.body))).toMatchObject({
      method: 'GET',
      url: '/hello?x=1',
    });
  });

  it('sends a string body with its length, with GET too (GET /api/generate-upload-url reads one)', async () => {
    const server = await echo();
    const body = JSON.stringify({ fileName: 'été.txt' });
    for (const method of ['GET', 'POST']) {
      const answer = await request(`${server.url}/body`, {
        method,
        headers: { 'content-type': 'application/json' },
        body,
        dispatcher: dispatcher(),
      });
      expect(JSON.parse(await text(answer.body))).toEqual({
        method,
        url: '/body',
        length: String(Buffer.byteLength(body)),
        body,
      });
    }
  });

  it('streams a body with the Content-Length given (object stores refuse chunked uploads)', async () => {
    const server = await echo();
    const answer = await request(`${server.url}/object`, {
      method: 'PUT',
      headers: { 'content-length': '6' },
      body: Readable.from([Buffer.from('abc'), Buffer.from('def')]),
      dispatcher: dispatcher(),
    });
    expect(JSON.parse(await text(answer.body))).toEqual({
      method: 'PUT',
      url: '/object',
      length: '6',
      body: 'abcdef',
    });
  });

  it('rejects when the signal fires before the answer', async () => {
    const server = await receiver(() => undefined);
    const controller = new AbortController();
    const sent = request(`${server.url}/never`, {
      method: 'GET',
      headers: {},
      signal: controller.signal,
      dispatcher: dispatcher(),
    });
    await server.next();
    controller.abort(new Error('stop'));
    await expect(sent).rejects.toThrow();
  });

  it('rejects with ECONNREFUSED when nothing listens', async () => {
    const server = await receiver();
    const url = `${server.url}/gone`;
    await server.close();
    const failure = await request(url, {
      method: 'GET',
      headers: {},
      dispatcher: dispatcher(),
    }).then(
      () => undefined,
      (error: unknown) => error as { code?: string },
    );
    expect(failure?.code).toBe('ECONNREFUSED');
  });
});
