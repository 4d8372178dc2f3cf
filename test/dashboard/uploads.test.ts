import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { call } from '../kit/http.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

describe('dashboard: Uploads', () => {
  it('uploads picked and dropped files into a repository through the signed-URL flow; the bytes are in storage', async () => {
    const emu = await emulator();
    const auth = `Bearer ${emu.token}`;
    const { page, consoleErrors } = await openDashboard(emu, 'uploads');
    await page.getByLabel('Upload into').selectOption('repo_docs');
    await page.getByLabel('Folder (optional)').fill('manuals');

    const big = randomBytes(3 * 1024 * 1024);
    await page.getByLabel('Choose files to upload').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain notes\n') },
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: big },
    ]);
    // Drag and drop: a real drop event carrying a file.
    // (Page code as a string: the tests' tsconfig has no DOM library.)
    const dropped = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['# dropped\\n'], 'dropped.md', { type: 'text/markdown' }));
      return transfer;
    })()`);
    await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: dropped });

    for (const name of ['notes.txt', 'big.bin', 'dropped.md']) {
      const row = page.getByRole('row', { name: `Upload of ${name}` });
      await row.getByRole('cell', { name: 'done' }).waitFor();
      await row.getByRole('cell', { name: 'UPLOADED' }).waitFor();
      const bar = row.getByLabel(`Progress of ${name}`);
      expect(await bar.getAttribute('value')).toBe(await bar.getAttribute('max'));
    }
    await screenshot(page, 'uploads');

    // Attached to the repository, UPLOADED, and the bytes really are in storage.
    const files = await call(emu.url, 'GET', '/api/repositories/repo_docs/files', { token: auth });
    const byName = Object.fromEntries(
      files.body.data.map((f: { fileName: string }) => [f.fileName, f]),
    );
    expect(Object.keys(byName).sort()).toEqual(['big.bin', 'dropped.md', 'notes.txt']);
    for (const [name, bytes] of [
      ['notes.txt', Buffer.from('plain notes\n')],
      ['big.bin', big],
      ['dropped.md', Buffer.from('# dropped\n')],
    ] as const) {
      expect(byName[name]).toMatchObject({
        status: 'UPLOADED',
        folder: 'manuals',
        fileSize: bytes.length,
      });
      const access = await call(emu.url, 'GET', `/api/access/${byName[name].id}`, { token: auth });
      const object = await request(access.body.data.url);
      expect(Buffer.from(await object.body.arrayBuffer()).equals(bytes), name).toBe(true);
    }
    expectNoConsoleErrors(consoleErrors);
  });
});
