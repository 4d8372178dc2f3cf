import { call } from '../kit/index.js';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { signedQuery } from '../../emulator/uploads/storage/signing.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir and tests the secrets a start refuses.

// "An empty storage-secret becomes an empty signing key" (issue 36): a first start on a nearly full
// disk left a 0-byte storage-secret, the next start read it as an empty HMAC key, and anyone could
// sign upload and download URLs (a URL signed with '' got PUT -> 200). Now an empty file gets a new
// key (written whole: temporary file, fsync, rename, 0600) before any URL is signed, and any other
// content that is not a 32-byte key refuses the start, naming the file and the fix.

let dir: string;
let emu: Emulator | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-secret-'));
});
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  await rm(dir, { recursive: true, force: true });
});

const secretPath = () => join(dir, 'storage-secret');

/** A signed upload URL of the running emulator, and the same grant signed with `secret` instead. */
async function uploadUrls(running: Emulator, secret: string): Promise<{ real: URL; forged: URL }> {
  const generated = await call(running.url, 'POST', '/api/generate-upload-url', {
    token: running.token!,
    body: { files: [{ fileName: 'a.txt' }], parentId: 'org_dev', parentType: 'ORG' },
  });
  expect(generated.status).toBe(201);
  const real = new URL(generated.body.data.files[0].signedUrl);
  const key = decodeURIComponent(real.pathname.replace(/^\/_storage\//, ''));
  const expires = Number(real.searchParams.get('expires'));
  const max = real.searchParams.get('max');
  const forged = new URL(real);
  forged.search = signedQuery(secret, {
    method: 'PUT',
    key,
    expires,
    maxBytes: max === null ? undefined : Number(max),
  });
  return { real, forged };
}

test('a 0-byte storage-secret is replaced by a new key before use: a URL signed with an empty key is refused', async () => {
  emu = await startEmulator({ dataDir: dir });
  await emu.close();
  await writeFile(secretPath(), '');

  emu = await startEmulator({ dataDir: dir });
  const { real, forged } = await uploadUrls(emu, '');
  const forgedPut = await fetch(forged, { method: 'PUT', body: 'forged' });
  expect(forgedPut.status).toBe(403);
  const realPut = await fetch(real, { method: 'PUT', body: 'real' });
  expect(realPut.status).toBe(200);

  const kept = await readFile(secretPath(), 'utf8');
  expect(kept).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  expect((await stat(secretPath())).mode & 0o777).toBe(0o600);
  expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
});

test('a storage-secret that is not a 32-byte key refuses the start, naming the file and the fix, and stays as it was', async () => {
  emu = await startEmulator({ dataDir: dir });
  await emu.close();
  emu = undefined;
  for (const damaged of ['short', 'not base64 at all, but long enough to be a key!!', '\n\n']) {
    await writeFile(secretPath(), damaged);
    const start = startEmulator({ dataDir: dir });
    if (damaged.trim() === '') {
      // Whitespace only is empty: replaced, as a 0-byte file is.
      emu = await start;
      await emu.close();
      emu = undefined;
      expect(await readFile(secretPath(), 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      continue;
    }
    await expect(start).rejects.toThrow(
      `the storage secret ${secretPath()} is not a 32-byte key in base64`,
    );
    await expect(start).rejects.toThrow(/delete the file to start with a new key/);
    expect(await readFile(secretPath(), 'utf8')).toBe(damaged);
    expect(await readdir(dir)).not.toContain('emulator.lock');
  }
});

test('the key files of a new data dir are written whole and owner-only', async () => {
  emu = await startEmulator({ dataDir: dir });
  await emu.close();
  emu = undefined;
  for (const name of ['storage-secret', 'seed.json', 'store-id'])
    expect((await stat(join(dir, name))).mode & 0o777, name).toBe(0o600);
  expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  // The same key and credentials at the next start: URLs and tokens stay valid.
  const secret = await readFile(secretPath(), 'utf8');
  emu = await startEmulator({ dataDir: dir });
  expect(await readFile(secretPath(), 'utf8')).toBe(secret);
});

test('a damaged seed.json (the credentials a restart prints) refuses the start, naming the file, instead of printing credentials the store does not hold', async () => {
  emu = await startEmulator({ dataDir: dir });
  const token = emu.token;
  await emu.close();
  emu = undefined;
  const seedPath = join(dir, 'seed.json');
  const kept = await readFile(seedPath, 'utf8');
  for (const damaged of ['', '{"users": [', '[]']) {
    await writeFile(seedPath, damaged);
    await expect(startEmulator({ dataDir: dir })).rejects.toThrow(
      `the credentials file ${seedPath} is damaged`,
    );
    expect(await readdir(dir)).not.toContain('emulator.lock');
  }
  await writeFile(seedPath, kept);
  emu = await startEmulator({ dataDir: dir });
  expect(emu.token).toBe(token);
});
