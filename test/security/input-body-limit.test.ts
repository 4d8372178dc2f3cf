import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A body over the 1 MB limit is answered 413 in a way HTTP clients can read: the server reads
// (and drops) a bounded amount of the body before it answers and closes, so the client is not
// cut off mid-upload (EPIPE / "other side closed") before it sees the 413. The emulator runs in
// its own process (built from dist/, as the CLI runs it): in the test's own process the client's
// writes and the server's reads share one event loop and hide the race.
const DIST = resolve(import.meta.dirname, '../../dist/emulator/index.js');
let child: ChildProcess;
let emu: { url: string; messagingUrl: string; token: string; apiKey: string; adminToken?: string };

beforeAll(async () => {
  const script = `const { startEmulator } = await import(${JSON.stringify(DIST)}); const e = await startEmulator(); console.log(JSON.stringify({ url: e.url, messagingUrl: e.messagingUrl, token: e.token, apiKey: e.apiKey, adminToken: e.adminToken }));`;
  child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  emu = JSON.parse(
    await new Promise<string>((done, fail) => {
      child.stdout!.once('data', (chunk: Buffer) => done(chunk.toString()));
      child.once('exit', (code) => fail(new Error(`the emulator exited with ${code}`)));
    }),
  );
});
afterAll(() => {
  child.kill();
});

const MB = 1024 * 1024;

/** A JSON body of about `megabytes`, sent with a content-length. */
function sized(megabytes: number): string {
  return JSON.stringify({ name: 'big', description: 'x'.repeat(megabytes * MB) });
}

/** The same, streamed without a content-length (chunked). */
function chunked(megabytes: number): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < megabytes * 16; i++) yield Buffer.alloc(64 * 1024, 0x20);
    })(),
  );
}

async function outcome(send: () => Promise<{ status: number; body: any }>): Promise<string> {
  try {
    const { status, body } = await send();
    return `${status} ${body?.error?.error}`;
  } catch (error) {
    const e = error as { cause?: { code?: string }; code?: string };
    return e.cause?.code ?? e.code ?? String(error);
  }
}

const viaUndici =
  (url: string, headers: Record<string, string>, body: string | Readable) => async () => {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: res.statusCode, body: await res.body.json() };
  };
const viaFetch =
  (url: string, headers: Record<string, string>, body: string | Readable) => async () => {
    const stream = typeof body === 'string' ? body : (Readable.toWeb(body) as ReadableStream);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.json() };
  };

describe('a too-large body', () => {
  it('a 2 MB body is a 413 that undici request and fetch read, every time, on the management and messaging APIs', async () => {
    const results = new Set<string>();
    for (let i = 0; i < 5; i++) {
      for (const [url, headers] of [
        [`${emu.url}/api/orgs/org_dev/repositories`, { authorization: emu.token }],
        [`${emu.messagingUrl}/conversations`, { authorization: `Bearer ${emu.apiKey}` }],
      ] as const) {
        results.add(await outcome(viaUndici(url, headers, sized(2))));
        results.add(await outcome(viaFetch(url, headers, sized(2))));
      }
    }
    expect([...results]).toEqual(['413 PAYLOAD_TOO_LARGE']);
  });

  it('larger and chunked bodies (no content-length) are readable 413s too', async () => {
    const results = new Set<string>();
    const url = `${emu.url}/api/orgs/org_dev/repositories`;
    for (let i = 0; i < 3; i++) {
      results.add(await outcome(viaUndici(url, { authorization: emu.token }, sized(20))));
      results.add(await outcome(viaUndici(url, { authorization: emu.token }, chunked(4))));
      results.add(await outcome(viaFetch(url, { authorization: emu.token }, chunked(4))));
    }
    expect([...results]).toEqual(['413 PAYLOAD_TOO_LARGE']);
  });

  it('an upload over its signed size is a readable 413', async () => {
    const generated = await request(`${emu.url}/api/generate-upload-url`, {
      method: 'POST',
      headers: { authorization: emu.token, 'content-type': 'application/json' },
      body: JSON.stringify({ files: [{ fileName: 'a.txt', fileSize: 10 }] }),
    });
    const signedUrl = ((await generated.body.json()) as any).data.files[0].signedUrl;
    const results = new Set<string>();
    for (let i = 0; i < 4; i++) {
      results.add(
        await outcome(async () => {
          const res = await request(signedUrl, {
            method: 'PUT',
            headers: { 'content-type': 'text/plain' },
            body: 'x'.repeat(20 * MB),
          });
          return { status: res.statusCode, body: await res.body.json() };
        }),
      );
    }
    expect([...results]).toEqual(['413 PAYLOAD_TOO_LARGE']);
    const health = await request(`${emu.url}/_emulator/health`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});
