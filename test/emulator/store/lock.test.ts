import { afterEach, expect, test } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store, StoreError } from '../../../emulator/store/store.js';
import { defineCollections, type Db } from '../../../emulator/model.js';
import { startEmulator } from '../../../emulator/index.js';
import { startChild, type EmulatorChild } from '../../kit/emulator-child.js';

// startEmulator rather than the kit's emulator(): this file tests that a second start on a locked dataDir is refused.

let child: EmulatorChild | undefined;
let dir: string | undefined;
afterEach(async () => {
  await child?.kill();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('a data dir held by another process is refused; after that process is SIGKILLed its stale lock is taken over', async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-lock-'));
  child = await startChild(dir);
  expect(Number(await readFile(join(dir, 'emulator.lock'), 'utf8'))).toBe(child.info.pid);

  const refused = Store.open({ dataDir: dir }, defineCollections);
  await expect(refused).rejects.toThrow(StoreError);
  await expect(Store.open({ dataDir: dir }, defineCollections)).rejects.toThrow(
    new RegExp(`in use by another emulator \\(pid ${child.info.pid}\\); stop it first`),
  );
  // The emulator refuses the same way.
  await expect(startEmulator({ dataDir: dir })).rejects.toThrow(StoreError);

  await child.kill();
  let db!: Db;
  const store = await Store.open({ dataDir: dir }, (s) => {
    db = defineCollections(s);
  });
  try {
    // The child's seeded workspace is there.
    expect(db.users.size).toBeGreaterThan(0);
    expect(Number(await readFile(join(dir, 'emulator.lock'), 'utf8'))).toBe(process.pid);
  } finally {
    await store.close();
  }
});
