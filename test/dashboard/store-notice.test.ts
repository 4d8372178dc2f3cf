import { adminCall, emulator } from '../kit/index.js';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';

import { axeContext, findingsInBothSchemes } from './helpers/axe.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// The notice a store change leaves at the top of every page ("The emulator imported a store")
// can be closed, and stays closed for that change; the next change brings its own (issue 45).

/** The store-change notices in the page. */
function notices(page: Page) {
  return page.getByRole('status').filter({ hasText: 'every list was read again' });
}

/** Goes to a view and waits until it has drawn its heading. */
async function visit(page: Page, view: string, heading: string | RegExp): Promise<void> {
  await page.goto(new URL(`#/${view}`, page.url()).href);
  await page.getByRole('heading', { name: heading }).first().waitFor();
}

describe('dashboard: the store-change notice', () => {
  it('closes, stays closed across pages for that import, and a later reset shows its own', async () => {
    const emu = await emulator({ inMemory: true });
    const exported = await adminCall(emu, 'GET', '/_emulator/export');
    expect(exported.status).toBe(200);
    const { page, consoleErrors } = await openDashboard(
      emu,
      'deliveries',
      await axeContext({ width: 390, height: 844 }),
    );
    await page.getByRole('heading', { name: /Deliveries/ }).waitFor();
    expect(await notices(page).count()).toBe(0);

    expect(
      (await adminCall(emu, 'POST', '/_emulator/import', { body: exported.body.data })).status,
    ).toBe(200);
    const imported = notices(page).filter({ hasText: 'The emulator imported a store' });
    await imported.waitFor();
    expect(await findingsInBothSchemes(page, 'notice at 390 px')).toEqual([]);
    await screenshot(page, 'store-notice-390');

    await page.getByRole('button', { name: 'Close this notice' }).click();
    await expect.poll(() => notices(page).count()).toBe(0);
    // Other pages, and back: the closed notice does not come back.
    await visit(page, 'overview', 'Overview');
    await visit(page, 'data/plugins', 'Data');
    await visit(page, 'deliveries', /Deliveries/);
    expect(await notices(page).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Close this notice' }).count()).toBe(0);

    // A new change of the store is news again.
    expect((await adminCall(emu, 'POST', '/_emulator/reset')).status).toBe(200);
    await notices(page).filter({ hasText: 'The emulator was reset' }).waitFor();
    expect(await notices(page).count()).toBe(1);
    await page.getByRole('button', { name: 'Close this notice' }).click();
    await expect.poll(() => notices(page).count()).toBe(0);
    expectNoConsoleErrors(consoleErrors);
  });
});
