import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from './helpers/browser.js';

describe('dashboard: sign-in and the Overview', () => {
  it('opens signed in from a login link, shows the shell, and logs no errors', async () => {
    const emu = await startEmulator();
    onTestFinished(() => emu.close());
    const { page, consoleErrors } = await openDashboard(emu);
    // The login code left the address bar (and history) once used.
    expect(page.url()).not.toContain('login=');
    await page.getByRole('link', { name: 'Overview', exact: true }).waitFor();
    // The session is an HttpOnly, SameSite=Strict cookie scoped to the admin surface.
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: `plugsmith_dashboard_${new URL(emu.url).port}`, httpOnly: true, sameSite: 'Strict', path: '/_emulator' });
    await screenshot(page, 'overview');
    expectNoConsoleErrors(consoleErrors);
  });
});
