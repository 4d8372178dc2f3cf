import { call } from '../../kit/index.js';
import { mkdtemp, readdir, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startEmulator } from '../../../emulator/index.js';

import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file starts on data dirs it damaged, and restarts on them.

// "Corrupted data dirs that start with less data, silently" (issue 36): snapshot.json deleted while
// journal-2 existed started with 20 of 50 plugins; a raised snapshot generation deleted journal-2;
// byte flips that kept the JSON valid were accepted; `null` and `{"t":"replace"}` journal lines
// crashed naming no file; a record without an id started and then every list answered 500. Each
// now refuses to start, naming the file and the way back, and changes nothing in the data dir.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-corrupt-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A data dir with 50 plugins: 30 in the snapshot (generation 2 or more), 20 more in the journal after it. */
async function dataDirWithPlugins(): Promise<{ generation: number }> {
  const emu = await startEmulator({ dataDir: dir });
  try {
    const create = (i: number) =>
      call(emu.url, 'POST', '/api/plugins', {
        token: emu.token!,
        body: { orgId: 'org_dev', name: `Plugin ${i}`, type: 'APP' },
      });
    for (let i = 0; i < 30; i++) expect((await create(i)).status).toBe(201);
    await emulatorInternals(emu).store.compact();
    for (let i = 30; i < 50; i++) expect((await create(i)).status).toBe(201);
  } finally {
    await emu.close();
  }
  const snapshot = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
  expect(snapshot.generation).toBeGreaterThanOrEqual(2);
  return { generation: snapshot.generation };
}

/** Every file of the data dir and its bytes. */
async function contents(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort())
    if (name !== 'objects') files[name] = await readFile(join(dir, name), 'latin1');
  return files;
}

/** Starting refuses, naming `file` and the recovery, and leaves every file as it was (no lock either). */
async function expectRefused(file: string, reason: RegExp): Promise<void> {
  const before = await contents();
  const start = startEmulator({ dataDir: dir });
  await expect(start).rejects.toThrow(reason);
  const message = await start.then(
    () => '',
    (error: Error) => error.message,
  );
  expect(message).toContain(join(dir, file));
  expect(message).toContain('restore it from a backup');
  expect(message).toContain('--data-dir elsewhere');
  expect(message).not.toMatch(/Cannot read properties/);
  expect(await contents()).toEqual(before);
}

async function editSnapshot(edit: (text: string) => string): Promise<void> {
  const path = join(dir, 'snapshot.json');
  await writeFile(path, edit(await readFile(path, 'utf8')));
}

/** The snapshot as an older plugsmith wrote it: without the checksum field. */
function withoutChecksum(text: string): string {
  return text.replace(/,"sha256":"[0-9a-f]{64}"\}$/, '}');
}

describe('a corrupt data dir is refused, never shrunk', () => {
  test('the data dir of the test starts whole: 50 plugins', async () => {
    await dataDirWithPlugins();
    const emu = await startEmulator({ dataDir: dir });
    try {
      const plugins = await call(emu.url, 'GET', '/api/orgs/org_dev/plugins', {
        token: emu.token!,
        query: { '@limit': 100 },
      });
      expect(plugins.body.data).toHaveLength(50);
    } finally {
      await emu.close();
    }
  });

  test('snapshot.json deleted while a later journal exists', async () => {
    const { generation } = await dataDirWithPlugins();
    await rm(join(dir, 'snapshot.json'));
    await expectRefused(`journal-${generation}.jsonl`, /snapshot .* is missing/);
  });

  test("the snapshot's generation raised (with its checksum, and in an older file without one)", async () => {
    const { generation } = await dataDirWithPlugins();
    const raise = (text: string) =>
      text.replace(`"generation":${generation},`, `"generation":${generation + 3},`);
    const original = await readFile(join(dir, 'snapshot.json'), 'utf8');
    await editSnapshot(raise);
    await expectRefused('snapshot.json', /checksum does not match/);

    await writeFile(join(dir, 'snapshot.json'), raise(withoutChecksum(original)));
    await expectRefused(`journal-${generation}.jsonl`, /does not fit the snapshot/);
  });

  test('byte flips that keep the JSON valid: in a name, in the version, in the checksum field', async () => {
    await dataDirWithPlugins();
    const original = await readFile(join(dir, 'snapshot.json'), 'utf8');
    await editSnapshot((text) => text.replace('Plugin 7', 'Plugin 8'));
    await expectRefused('snapshot.json', /checksum does not match/);
    await writeFile(
      join(dir, 'snapshot.json'),
      original.replace('"schemaVersion":3', '"schemaVersion":1'),
    );
    await expectRefused('snapshot.json', /checksum does not match/);
    await writeFile(join(dir, 'snapshot.json'), original.replace('"sha256"', '"sha257"'));
    await expectRefused('snapshot.json', /a field "sha257" no snapshot has/);
  });

  test('a null line, a replace without collections, and an unknown kind in the journal', async () => {
    const { generation } = await dataDirWithPlugins();
    const journal = join(dir, `journal-${generation}.jsonl`);
    const original = await readFile(journal, 'utf8');
    // The line and its first byte are named.
    await writeFile(journal, original + 'null\n');
    await expectRefused(
      `journal-${generation}.jsonl`,
      new RegExp(`corrupt at line 21 \\(byte ${Buffer.byteLength(original)}\\)`),
    );
    for (const [line, reason] of [
      ['null', /journal.* is corrupt at line 21 .*: it is not a change/],
      ['{"t":"replace"}', /is corrupt at line 21 .*: its replacement has no collections/],
      [
        '{"t":"replace","collections":{"plugins":[null]}}',
        /record 0 of its collection plugins is not an object/,
      ],
      ['{"t":"all","m":[null]}', /change 0 of its batch: it is not a change/],
      ['{"t":"drop","c":"plugins"}', /its kind "drop" is not put, del, all or replace/],
      ['{"t":"del","c":"plugins"}', /its delete names no record id/],
    ] as const) {
      await writeFile(journal, original + line + '\n');
      await expectRefused(`journal-${generation}.jsonl`, reason);
    }
  });

  test('a record without an id, in the journal and in a snapshot', async () => {
    const { generation } = await dataDirWithPlugins();
    const journal = join(dir, `journal-${generation}.jsonl`);
    const original = await readFile(journal, 'utf8');
    await appendFile(journal, '{"t":"put","c":"plugins","r":{"name":"no id"}}\n');
    await expectRefused(`journal-${generation}.jsonl`, /its record has no id/);

    await writeFile(journal, original);
    await editSnapshot((text) =>
      withoutChecksum(text).replace('"plugins":[{"id":', '"plugins":[{"name":"no id"},{"id":'),
    );
    await expectRefused('snapshot.json', /record 0 of its collection plugins has no id/);
  });

  test('compactions cut short one after another leave journals N, N+1, N+2: all replayed; a gap among them is refused', async () => {
    const { generation } = await dataDirWithPlugins();
    const put = (name: string) =>
      `{"t":"put","c":"repositories","r":{"id":"rep_${name}","orgId":"org_dev","name":"${name}","isPublic":false,"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}}\n`;
    await writeFile(join(dir, `journal-${generation + 1}.jsonl`), put('one'));
    await writeFile(join(dir, `journal-${generation + 2}.jsonl`), put('two'));
    const emu = await startEmulator({ dataDir: dir });
    try {
      expect(emulatorInternals(emu).db.plugins.size).toBe(50);
      expect(emulatorInternals(emu).db.repositories.get('rep_one')?.name).toBe('one');
      expect(emulatorInternals(emu).db.repositories.get('rep_two')?.name).toBe('two');
    } finally {
      await emu.close();
    }
    await rm(join(dir, `journal-${generation + 1}.jsonl`));
    await expectRefused(`journal-${generation + 2}.jsonl`, /does not fit the snapshot/);
  });

  test('a snapshot without a checksum (an older plugsmith) is read, then rewritten with one', async () => {
    await dataDirWithPlugins();
    await editSnapshot(withoutChecksum);
    const emu = await startEmulator({ dataDir: dir });
    try {
      const plugins = await call(emu.url, 'GET', '/api/orgs/org_dev/plugins', {
        token: emu.token!,
        query: { '@limit': 100 },
      });
      expect(plugins.body.data).toHaveLength(50);
    } finally {
      await emu.close();
    }
    expect(await readFile(join(dir, 'snapshot.json'), 'utf8')).toMatch(
      /,"sha256":"[0-9a-f]{64}"\}$/,
    );
  });
});
