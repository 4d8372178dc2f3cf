import { describe, expect, it } from 'vitest';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

// One file whose name the emulator refuses must not fail the others picked with it: the good ones
// upload, the bad one is reported by name, with a sentence that says which characters are not
// allowed (not the contract's regular expression), in a box that stays on the screen.

describe('dashboard: Uploads with a file name the emulator refuses', () => {
  it('uploads the good files, reports the bad one by name in words, and keeps the box on the screen', async () => {
    const emu = await emulator();
    const { page, consoleErrors } = await openDashboard(emu, 'uploads');
    const bad = 'report: draft?.txt';
    await page.getByLabel('Choose files to upload').setInputFiles([
      { name: 'first.txt', mimeType: 'text/plain', buffer: Buffer.from('one\n') },
      { name: bad, mimeType: 'text/plain', buffer: Buffer.from('two\n') },
      { name: 'third.txt', mimeType: 'text/plain', buffer: Buffer.from('three\n') },
    ]);
    for (const name of ['first.txt', 'third.txt']) {
      const row = page.getByRole('row', { name: `Upload of ${name}` });
      await row.getByRole('cell', { name: 'UPLOADED' }).waitFor();
    }
    const uploaded = [...emulatorInternals(emu).db.files.values()].map((f) => f.fileName).sort();
    expect(uploaded).toEqual(['first.txt', 'third.txt']);

    const badRow = page.getByRole('row', { name: `Upload of ${bad}` });
    const alert = badRow.getByRole('alert');
    await alert.waitFor();
    const said = (await alert.textContent()) ?? '';
    expect(said).toContain('holds : and ?, which are not allowed');
    expect(said).not.toMatch(/pattern|\\u00|\[\^/);

    const box = await alert.boundingBox();
    const width = await page.evaluate('document.documentElement.clientWidth');
    expect(box, 'the error box is laid out').not.toBeNull();
    expect(box!.x + box!.width, 'the error box ends inside the page').toBeLessThanOrEqual(
      width as number,
    );
    await screenshot(page, 'uploads-bad-name');
    expectNoConsoleErrors(consoleErrors);
  });

  it('names the characters a folder may not hold, and uploads nothing into it', async () => {
    const emu = await emulator();
    const { page, consoleErrors } = await openDashboard(emu, 'uploads');
    await page.getByLabel('Folder (optional)').fill('docs/2026|q1');
    await page
      .getByLabel('Choose files to upload')
      .setInputFiles([{ name: 'first.txt', mimeType: 'text/plain', buffer: Buffer.from('one\n') }]);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('the folder holds |, which is not allowed');
    expect(emulatorInternals(emu).db.files.size).toBe(0);
    expectNoConsoleErrors(consoleErrors);
  });
});
