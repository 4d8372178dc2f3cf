import { describe, expect, it } from 'vitest';
import { call } from '../kit/http.js';
import { expectNoConsoleErrors, newContext, openDashboard, screenshot } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

describe('dashboard: sign-in and the Overview', () => {
  it('opens signed in from a login link, leaves no code in the address bar, and keeps the session in localStorage, never a cookie', async () => {
    const emu = await emulator();
    const { page, consoleErrors } = await openDashboard(emu);
    expect(page.url()).not.toContain('login=');
    await page.getByRole('link', { name: 'Overview', exact: true }).waitFor();
    // Not in history either: back and forward land on the entry the page replaced.
    await page.goBack();
    await page.goForward();
    expect(page.url()).not.toContain('login=');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate("localStorage.getItem('plugsmith.dashboard.session')")).toMatch(
      /^[A-Za-z0-9_-]{40,}$/,
    );
    expectNoConsoleErrors(consoleErrors);
  });

  it('shows URLs, masked credentials with reveal and copy, the store, uptime, counts and queue, and refreshes them', async () => {
    const emu = await emulator();
    const context = await newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: emu.url });
    const { page, consoleErrors } = await openDashboard(emu, 'overview', context);

    await expect(
      page.getByLabel('Management API URL', { exact: true }).textContent(),
    ).resolves.toBe(emu.url);
    await expect(page.getByLabel('Messaging API URL', { exact: true }).textContent()).resolves.toBe(
      emu.messagingUrl,
    );
    // Counted once the store's row has rendered (count() does not wait; the URLs above come first).
    await expect
      .poll(() => page.getByRole('definition').filter({ hasText: 'in memory' }).count())
      .toBe(1);
    // The token is masked until revealed, and copied whole either way.
    const token = page.getByLabel('token', { exact: true });
    expect(await token.textContent()).not.toContain(emu.token!.slice(6));
    await page.getByRole('button', { name: 'Copy token' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(emu.token);
    await page.getByRole('button', { name: 'Reveal token' }).click();
    await expect(token.textContent()).resolves.toBe(emu.token);
    expect(await page.getByLabel('API key', { exact: true }).textContent()).not.toBe(emu.apiKey);

    const plugins = page.getByRole('row', { name: /^Plugins/ });
    await expect(plugins.getByRole('cell').textContent()).resolves.toBe('0');
    await call(emu.url, 'POST', '/api/plugins', {
      token: emu.token!,
      body: {
        orgId: emu.orgId,
        name: 'Weather',
        description: 'd',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: 'http://127.0.0.1:9/hook',
      },
    });
    // Refreshed without a reload.
    await plugins.getByRole('cell', { name: '1', exact: true }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Hide token' }).click();
    await screenshot(page, 'overview');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'overview-dark');
    expectNoConsoleErrors(consoleErrors);
  });
});
