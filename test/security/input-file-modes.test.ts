import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { api } from '../kit/index.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

// The data dir holds webhook secrets, installation tokens (in logged deliveries) and the key of
// storage URL signatures: the folder is owner-only (0700) and every file in it 0600.
let root: string;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Every folder and file under `dir` with its permission bits. */
async function modes(dir: string): Promise<Array<{ path: string; mode: number; folder: boolean }>> {
  const out = [{ path: dir, mode: (await stat(dir)).mode & 0o777, folder: true }];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await modes(path)));
    else out.push({ path, mode: (await stat(path)).mode & 0o777, folder: false });
  }
  return out;
}

describe('data dir permissions', () => {
  it('after activity (a plugin, an upload, compaction, a restart) the data dir and its folders are 0700 and every file 0600', async () => {
    root = await mkdtemp(join(tmpdir(), 'plugsmith-modes-'));
    const dataDir = join(root, 'data');
    const previous = process.umask(0o022);
    try {
      for (let round = 0; round < 2; round++) {
        const emu = await startEmulator({ dataDir, store: { compactAfter: { lines: 3 } } });
        try {
          for (let i = 0; i < 4; i++)
            await api(emu).data('POST', '/api/plugins', {
              name: `p${round}${i}`,
              type: 'APP',
              orgId: 'org_dev',
            });
          const generated = await api(emu).data('POST', '/api/generate-upload-url', {
            files: [{ fileName: 'a.txt', contentType: 'text/plain' }],
          });
          const put = await request(generated.files[0].signedUrl, {
            method: 'PUT',
            headers: { 'content-type': 'text/plain' },
            body: 'hello',
          });
          expect(put.statusCode).toBe(200);
          await put.body.dump();
        } finally {
          await emu.close();
        }
      }
    } finally {
      process.umask(previous);
    }
    const all = await modes(dataDir);
    expect(all.filter((e) => !e.folder).length).toBeGreaterThan(4);
    const wrong = all
      .filter((e) => e.mode !== (e.folder ? 0o700 : 0o600))
      .map((e) => `${e.path} ${e.mode.toString(8)}`);
    expect(wrong).toEqual([]);
  });

  it('a data dir left 0755 with 0644 files by an older version is made owner-only at start', async () => {
    root = await mkdtemp(join(tmpdir(), 'plugsmith-modes-'));
    const dataDir = join(root, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    await writeFile(join(dataDir, 'storage-secret'), Buffer.alloc(32, 1).toString('base64'), {
      mode: 0o644,
    });
    await chmod(join(dataDir, 'storage-secret'), 0o644);
    const emu = await startEmulator({ dataDir });
    await emu.close();
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, 'storage-secret'))).mode & 0o777).toBe(0o600);
  });
});
