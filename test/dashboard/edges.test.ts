import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { openDashboard, screenshot } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

// The states that used to be silent or cryptic: an emulator that went away, an unknown page.

describe('dashboard: edges', () => {
  it('an unknown route shows a not-found page, not the Overview', async () => {
    const emu = await emulator();
    const { page } = await openDashboard(emu, 'no-such-page/x');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Overview' }).count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain('#/no-such-page/x');
  });

  it('an emulator that stopped is named as such, not "Failed to fetch"', async () => {
    // Started and closed by the test: what the page shows once its emulator stopped is under test.
    const emu = await startEmulator();
    let closed = false;
    onTestFinished(() => (closed ? undefined : emu.close()));
    const { page } = await openDashboard(emu, 'deliveries');
    await page.getByRole('table', { name: 'Deliveries' }).waitFor();
    await emu.close();
    closed = true;
    await page.getByRole('alert').filter({ hasText: 'The emulator cannot be reached' }).waitFor();
    // A view loaded now says the same in its own words.
    await page.goto(new URL('#/data/plugins', page.url()).href);
    await page.getByRole('alert').filter({ hasText: 'Emulator unreachable' }).first().waitFor();
    expect(await page.getByText('Failed to fetch').count()).toBe(0);
    await screenshot(page, 'edges-unreachable');
  });
});
