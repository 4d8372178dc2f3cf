import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, onTestFinished, test } from 'vitest';
import { startEmulator, temporaryDataDir } from '../../emulator/index.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir and compares two starts.

async function healthOf(url: string): Promise<{ storeId: string }> {
  const response = await request(`${url}/_emulator/health`);
  return ((await response.body.json()) as { data: { storeId: string } }).data;
}

test('a store id lives with its data dir: the same across restarts and ports, reported by health; in memory a new one per start', async () => {
  const { dir, remove } = await temporaryDataDir();
  onTestFinished(remove);
  const first = await startEmulator({ dataDir: dir });
  expect(first.storeId).toMatch(/^st_[0-9a-z]{20}$/);
  expect((await healthOf(first.url)).storeId).toBe(first.storeId);
  expect((await readFile(join(dir, 'store-id'), 'utf8')).trim()).toBe(first.storeId);
  await first.close();

  const second = await startEmulator({ dataDir: dir });
  onTestFinished(() => second.close());
  expect(second.url).not.toBe(first.url);
  expect(second.storeId).toBe(first.storeId);
  expect((await healthOf(second.url)).storeId).toBe(first.storeId);

  const a = await startEmulator();
  const b = await startEmulator();
  onTestFinished(() => Promise.all([a.close(), b.close()]).then(() => undefined));
  expect(a.storeId).toMatch(/^st_/);
  expect(a.storeId).not.toBe(b.storeId);
  expect(a.storeId).not.toBe(first.storeId);
});
