import { call, emulator } from '../kit/index.js';
import http from 'node:http';
import { beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';

// "A COMPLETED file's object cannot be replaced through an old signed URL" (#15): the embedded
// store checked the file's status when a PUT started, not when its object was written, so a PUT
// that started while the file awaited its upload and ended after COMPLETED was acknowledged still
// replaced the object. The status is now checked again, in the tick that puts the object in place.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

function startPut(url: string, length: number) {
  const u = new URL(url);
  const req = http.request({
    host: u.hostname,
    port: u.port,
    path: u.pathname + u.search,
    method: 'PUT',
    headers: { 'content-length': String(length) },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
  });
  return { req, answered };
}

test('a PUT that started before COMPLETED cannot replace the object once COMPLETED is acknowledged', async () => {
  const token = emu.token!;
  const gen = await call(emu.url, 'POST', '/api/generate-upload-url', {
    token,
    body: { files: [{ fileName: 'race.txt' }], parentId: 'org_dev', parentType: 'ORG' },
  });
  expect(gen.status).toBe(201);
  const { signedUrl, fileRecord } = gen.body.data.files[0];

  // The slow uploader: headers and the first bytes now, the rest later.
  const slow = startPut(signedUrl, 12);
  slow.req.write('EVIL');
  slow.req.flushHeaders();
  // Let the server reach the point where it streams the body (it has checked the status by then).
  await new Promise((resolve) => setTimeout(resolve, 200));

  const good = await fetch(signedUrl, { method: 'PUT', body: 'GOOD content' });
  expect(good.status).toBe(200);
  expect(
    (
      await call(emu.url, 'PATCH', '/api/status', {
        token,
        body: { fileId: fileRecord.id, status: 'UPLOADED' },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await call(emu.url, 'PATCH', '/api/status', {
        token,
        body: { fileId: fileRecord.id, status: 'COMPLETED' },
      })
    ).status,
  ).toBe(200);

  slow.req.end(' content');
  const late = await slow.answered;
  expect(late).toBeGreaterThanOrEqual(400);

  const access = await call(emu.url, 'GET', `/api/access/${fileRecord.id}`, { token });
  expect(access.status).toBe(200);
  const url = access.body.data.signedUrl ?? access.body.data.url;
  const content = await (await fetch(url)).text();
  expect(content).toBe('GOOD content');
});
