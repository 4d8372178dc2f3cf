import { adminCall, type ApiResponse, call } from '../kit/index.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { Store, type Collection } from '../../emulator/store/store.js';
import { exported } from '../kit/store-export.js';
import { smallDisk, type SmallDisk } from '../kit/small-disk.js';

// startEmulator rather than the kit's emulator(): this file restarts on a dataDir the full disk left.

// "A refused write stays in memory" (issue 36): on a full disk a create answered 507 "nothing was
// stored", yet the plugin was listed at once and an action created on it was acknowledged; after a
// restart the plugin was gone and the action an orphan. Store.commit applied a change before its
// journal line was written and never took it back. Now a change whose line cannot be written is
// undone, with every change made after it (which may build on it), before the write is refused.
// The disk is a real tmpfs filled up (as root), or ENOSPC injected into node:fs's writes.

let disk: SmallDisk;
beforeAll(() => {
  disk = smallDisk();
});
afterAll(() => disk?.remove());

/** Larger than a memory page, so that no tmpfs page the journal already has can hold it. */
const LONG_TEXT = 'x'.repeat(9000);

interface Thing {
  id: string;
  text: string;
  parentId?: string;
}

async function openThings(dataDir: string): Promise<{ store: Store; things: Collection<Thing> }> {
  let things!: Collection<Thing>;
  const store = await Store.open({ dataDir }, (s) => {
    things = s.define<Thing>('things', ['parentId']);
  });
  return { store, things };
}

test(`a write refused by a full disk is undone, with the writes made after it, and the store reopens as memory was`, async () => {
  const dataDir = join(disk.dir, 'store');
  const first = await openThings(dataDir);
  await first.things.put({ id: 'kept', text: 'before' });
  await first.things.put({ id: 'gone', text: 'before' });

  disk.fill();
  let results: PromiseSettledResult<void>[];
  try {
    // All in one turn: the new record, one built on it, an update and a delete of acknowledged ones.
    const writes = [
      first.things.put({ id: 'new', text: LONG_TEXT }),
      first.things.put({ id: 'child', text: LONG_TEXT, parentId: 'new' }),
      first.things.put({ id: 'kept', text: LONG_TEXT }),
      first.things.delete('gone'),
    ];
    // Until the journal answers, the changes are in memory (a request may see them)...
    expect(first.things.has('new')).toBe(true);
    results = await Promise.allSettled(writes);
  } finally {
    disk.free();
  }
  for (const result of results)
    expect(result).toMatchObject({ status: 'rejected', reason: { code: 'ENOSPC' } });
  // ...and once refused, none of them is.
  expect(first.things.get('new')).toBeUndefined();
  expect(first.things.get('child')).toBeUndefined();
  expect(first.things.where('parentId', 'new')).toEqual([]);
  expect(first.things.get('kept')).toEqual({ id: 'kept', text: 'before' });
  expect(first.things.get('gone')).toEqual({ id: 'gone', text: 'before' });
  expect(first.things.size).toBe(2);

  // Space is back: writes work again, and a compaction writes only what was acknowledged.
  await first.things.put({ id: 'after', text: 'after' });
  await first.store.compact();
  await first.store.close();
  const second = await openThings(dataDir);
  try {
    expect([...second.things.values()].map((t) => [t.id, t.text]).sort()).toEqual([
      ['after', 'after'],
      ['gone', 'before'],
      ['kept', 'before'],
    ]);
  } finally {
    await second.store.close();
  }
});

test('a write made while a refused one is being written (it may build on it) is refused and undone with it', async () => {
  const dataDir = join(disk.dir, 'in-flight');
  const first = await openThings(dataDir);
  try {
    disk.fill();
    let parent: Promise<void>;
    let child: Promise<void>;
    try {
      parent = first.things.put({ id: 'parent', text: LONG_TEXT });
      // The journal takes the parent's line on the next turn; the child is made while it is on its way to the disk.
      await new Promise((resolve) => setImmediate(resolve));
      child = first.things.put({ id: 'child', text: LONG_TEXT, parentId: 'parent' });
      await Promise.allSettled([parent, child]);
    } finally {
      disk.free();
    }
    await expect(parent).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(child).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(first.things.size).toBe(0);
    expect(first.things.where('parentId', 'parent')).toEqual([]);
  } finally {
    await first.store.close();
  }
  const second = await openThings(dataDir);
  try {
    expect(second.things.size).toBe(0);
  } finally {
    await second.store.close();
  }
});

test('a plugin create answered 507 is not listed, cannot be built upon, and is not there after a restart', async () => {
  const dataDir = join(disk.dir, 'emulator');
  let emu: Emulator = await startEmulator({ dataDir });
  const token = emu.token!;
  try {
    const before = await exported(emu);
    disk.fill();
    let refused: ApiResponse;
    try {
      refused = await call(emu.url, 'POST', '/api/plugins', {
        token,
        body: { orgId: 'org_dev', name: 'Refused', type: 'APP', description: LONG_TEXT },
      });
      const listed = await call(emu.url, 'GET', '/api/orgs/org_dev/plugins', { token });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((p: { name: string }) => p.name)).not.toContain('Refused');
    } finally {
      disk.free();
    }
    expect(refused.status, JSON.stringify(refused.body)).toBe(507);
    expect(refused.body.error.error).toBe('INSUFFICIENT_STORAGE');
    expect(await exported(emu)).toEqual(before);

    // Space is back: the same create works.
    const created = await call(emu.url, 'POST', '/api/plugins', {
      token,
      body: { orgId: 'org_dev', name: 'Stored', type: 'APP' },
    });
    expect(created.status).toBe(201);
    await emu.close();

    emu = await startEmulator({ dataDir });
    const names = ((await exported(emu)).plugins as Array<{ name: string }>).map((p) => p.name);
    expect(names).toEqual(['Stored']);
  } finally {
    await emu.close();
  }
});

test('an import refused by a full disk leaves the store as it was', async () => {
  const dataDir = join(disk.dir, 'import');
  const emu = await startEmulator({ dataDir });
  try {
    const repository = await call(emu.url, 'POST', '/api/repositories', {
      token: emu.token!,
      body: { orgId: 'org_dev', name: 'big', description: LONG_TEXT },
    });
    expect(repository.status).toBe(201);
    const before = await exported(emu);
    // The whole contents go in one journal line, larger than a page with this repository.
    const repositories = (before.repositories as Array<{ id: string; name: string }>).map((r) =>
      r.id === repository.body.data.id ? { ...r, name: 'renamed' } : r,
    );
    const file = {
      format: 'plugsmith-emulator-export',
      version: 1,
      collections: { ...before, repositories },
    };
    disk.fill();
    let res: ApiResponse;
    try {
      res = await adminCall(emu, 'POST', '/_emulator/import', { body: file });
    } finally {
      disk.free();
    }
    expect(res.status, JSON.stringify(res.body)).toBe(507);
    expect(await exported(emu)).toEqual(before);
  } finally {
    await emu.close();
  }
});

test('a compaction that meets a full disk leaves no temporary snapshot behind, and loses nothing', async () => {
  const dataDir = join(disk.dir, 'compaction-temp');
  const first = await openThings(dataDir);
  for (let i = 0; i < 5; i++) await first.things.put({ id: `t${i}`, text: LONG_TEXT });
  disk.fill();
  try {
    await expect(first.store.compact()).rejects.toMatchObject({ code: 'ENOSPC' });
  } finally {
    disk.free();
  }
  expect(
    (await readdir(dataDir)).filter((name) => name.endsWith('.tmp') || name.endsWith('.next')),
  ).toEqual([]);
  await first.store.close();
  const second = await openThings(dataDir);
  try {
    expect(second.things.size).toBe(5);
  } finally {
    await second.store.close();
  }
});
