import { call, adminCall, emulator } from '../kit/index.js';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';

// What only the CLI could do, from the page: export, import, reset (typed confirmation), fault
// injection on and off with its profile and seed, sign out.

describe('dashboard: the emulator from the page', () => {
  it('exports, resets only after "reset" is typed, imports the export back, and turns faults on and off', async () => {
    const emu = await emulator();
    const created = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
      bearer: emu.token,
      body: {
        name: 'Kept in the export',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
      },
    });
    expect(created.status).toBe(201);
    const { page, consoleErrors } = await openDashboard(emu, 'overview');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export store' }).click();
    const file = await (await download).path();
    const exported = JSON.parse(await readFile(file, 'utf8'));
    expect(exported.collections.plugins.map((p: { name: string }) => p.name)).toContain(
      'Kept in the export',
    );

    const reset = page.getByRole('button', { name: 'Reset the emulator' });
    expect(await reset.isDisabled()).toBe(true);
    await page.getByLabel('Type reset to confirm').fill('rese');
    expect(await reset.isDisabled()).toBe(true);
    await page.getByLabel('Type reset to confirm').fill('reset');
    await reset.click();
    await expect.poll(() => emulatorInternals(emu).db.plugins.size).toBe(0);
    await page.getByRole('status').filter({ hasText: 'The emulator was reset' }).waitFor();

    // Picking the file replaces nothing: the page shows what would be replaced and asks.
    const created2 = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
      bearer: emu.token,
      body: {
        name: 'Made after the reset',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
      },
    });
    expect(created2.status).toBe(201);
    await page.getByLabel('Import a store from a file').setInputFiles(file);
    const confirmation = page.getByRole('form', { name: /Replace the store with/ });
    await confirmation.waitFor();
    const pluginsRow = confirmation.getByRole('row', { name: /^plugins/ });
    // Now: the one made after the reset; in the file: the one kept in the export.
    expect(await pluginsRow.getByRole('cell').allTextContents()).toEqual(['1', '1']);
    await expect.poll(() => confirmation.getByRole('row').count()).toBeGreaterThan(2);
    expect(emulatorInternals(emu).db.plugins.has(created2.body.data.id)).toBe(true);
    const replace = confirmation.getByRole('button', { name: 'Replace the store' });
    expect(await replace.isDisabled()).toBe(true);
    await confirmation.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('status').filter({ hasText: 'Import cancelled' }).waitFor();
    expect(await confirmation.count()).toBe(0);
    expect(emulatorInternals(emu).db.plugins.has(created2.body.data.id)).toBe(true);
    expect(emulatorInternals(emu).db.plugins.has(created.body.data.id)).toBe(false);

    await page.getByLabel('Import a store from a file').setInputFiles(file);
    await confirmation.waitFor();
    await confirmation.getByLabel('Type import to confirm').fill('import');
    await confirmation.getByRole('button', { name: 'Replace the store' }).click();
    await expect
      .poll(() => emulatorInternals(emu).db.plugins.get(created.body.data.id)?.name)
      .toBe('Kept in the export');
    await page.getByRole('status').filter({ hasText: 'imported' }).waitFor();
    expect(emulatorInternals(emu).db.plugins.has(created2.body.data.id)).toBe(false);

    await page.getByLabel('Fault profile').fill('drop=0.5');
    await page.getByLabel('Fault seed').fill('page-1');
    await page.getByRole('button', { name: 'Turn faults on' }).click();
    await page.getByText('drop=0.5').first().waitFor();
    expect((await adminCall(emu, 'GET', '/_emulator/faults')).body.data).toMatchObject({
      on: true,
      seed: 'page-1',
    });
    await screenshot(page, 'overview-controls', { fullPage: true });
    await page.getByRole('button', { name: 'Turn faults off' }).click();
    await page.getByText('Off: every delivery is sent as asked.').waitFor();
    expect((await adminCall(emu, 'GET', '/_emulator/faults')).body.data.on).toBe(false);
    expectNoConsoleErrors(consoleErrors);
  });

  it('signs out: the page shows the signed-out state and the session no longer works', async () => {
    const emu = await emulator();
    const { page, consoleErrors } = await openDashboard(emu, 'overview');
    const session = (await page.evaluate(
      "localStorage.getItem('plugsmith.dashboard.session')",
    )) as string;
    expect(session).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('This dashboard needs a login link').waitFor();
    const after = await call(emu.url, 'GET', '/_emulator/dashboard/session', {
      headers: {
        'x-plugsmith-session': session,
      },
    });
    expect(after.status).toBe(401);
    expectNoConsoleErrors(consoleErrors);
  });
});
