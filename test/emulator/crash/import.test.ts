// An import is durable as one step: SIGKILL at any step of it leaves either the store as it was
// or the imported one, plus every write acknowledged after it. The child emulator stops at a named
// step (PLUGSMITH_STORE_PAUSE, emulator/store/pause.ts); the test writes meanwhile, then kills it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startEmulator } from '../../../emulator/index.js';
import { builtEmulator, startChild, type ChildInfo } from '../../kit/emulator-child.js';
import { type ApiResponse, call as kitCall } from '../../kit/index.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the data dir a killed child left.

let root: string;
beforeAll(async () => {
  builtEmulator();
  root = await mkdtemp(join(tmpdir(), 'plugsmith-import-crash-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** A call to the child emulator: admin paths with its admin credential, the rest as its OWNER. */
function call(info: ChildInfo, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const credential = path.startsWith('/_emulator')
    ? { headers: { 'x-plugsmith-admin': info.adminToken } }
    : { token: info.token };
  return kitCall(info.url, method, path, { ...credential, body });
}

const createPlugin = (info: ChildInfo, name: string) =>
  call(info, 'POST', '/api/plugins', { orgId: info.orgId, name, type: 'APP' });

/** Where the store stops; null: nowhere (the import completes, then writes, then the kill). */
const STEPS = [
  'import-start',
  'import-written',
  'import-journaled',
  'compact-rotated',
  'compact-written',
  'compact-renamed',
  null,
] as const;
/** Steps at which the import line is already durable: only the imported store may come back. */
const DURABLE = new Set<string | null>([
  'import-journaled',
  'compact-rotated',
  'compact-written',
  'compact-renamed',
  null,
]);

test.each(STEPS)(
  'SIGKILL with the store stopped at %s: the old or the imported store, and every write acknowledged after',
  async (step) => {
    const dataDir = await mkdtemp(join(root, 'dir-'));
    // The old store: one plugin. The import: the same workspace with another plugin instead.
    const before = await startChild(dataDir);
    expect((await createPlugin(before.info, 'old')).status).toBe(201);
    const exported = (await call(before.info, 'GET', '/_emulator/export')).body.data;
    await before.kill();
    const [template] = exported.collections.plugins;
    const importFile = {
      ...exported,
      collections: {
        ...exported.collections,
        plugins: [{ ...template, id: 'plg_imported', name: 'imported' }],
      },
    };

    const child = await startChild(dataDir, { env: step ? { PLUGSMITH_STORE_PAUSE: step } : {} });
    const importing = call(child.info, 'POST', '/_emulator/import', importFile).catch(() => null);
    if (step === null) expect((await importing)?.status).toBe(200);
    else {
      for (let i = 0; !child.stderr().includes(`paused ${step}`); i++) {
        if (i > 200) throw new Error(`the child never reached ${step}: ${child.stderr()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    // Writes while the store is stopped there (or after the import): those acknowledged must survive.
    const acknowledged: string[] = [];
    await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        // A second per write: at import-written the journal's sync is held, and only time says a write will not answer.
        const created = await Promise.race([
          createPlugin(child.info, `after-${i}`),
          new Promise<null>((r) => setTimeout(() => r(null), 1000)),
        ]);
        if (created?.status === 201) acknowledged.push(`after-${i}`);
      }),
    );
    await child.kill();

    const emu = await startEmulator({ dataDir });
    try {
      const names = [...emulatorInternals(emu).db.plugins.values()].map((p) => p.name);
      for (const name of acknowledged) expect(names, `${name} was acknowledged`).toContain(name);
      const base = names.filter((n) => !n.startsWith('after-')).sort();
      if (DURABLE.has(step)) expect(base).toEqual(['imported']);
      else expect([['old'], ['imported']]).toContainEqual(base);
      if (step === 'import-start') expect(base).toEqual(['old']);
      // Whichever it is, it is whole: the workspace's org and token came back with it.
      expect(emulatorInternals(emu).db.orgs.get(child.info.orgId)).toBeDefined();
    } finally {
      await emu.close();
    }
    // Writes were acknowledged at every step but those that hold the journal's sync.
    if (step !== 'import-written') expect(acknowledged.length).toBeGreaterThan(0);
  },
  60_000,
);
