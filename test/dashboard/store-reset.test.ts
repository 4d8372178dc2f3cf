import { adminCall, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Emulator } from '../../emulator/index.js';
import { install, WebhookServer, verifiedPlugin } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// A reset or an import replaces the whole store: no view of the dashboard may keep showing (or
// offer actions on) the records of before.

let emu: Emulator;
let hook: WebhookServer;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  hook = await WebhookServer.start();
  const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: 'Reset plugin',
  });
  const agentId = emu.agentId!;
  await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
    name: 'On the agent',
    pluginId: plugin.id,
    events: [],
    scopes: [],
  });
});
afterAll(async () => {
  await hook?.close();
});

function bodyRows(page: Page) {
  return page.getByRole('table', { name: 'Deliveries' }).locator('[role=row].dl-body-row');
}

describe('dashboard: after a reset or an import', () => {
  it('the open Deliveries list and delivery drop what is gone, and come back with an import', async () => {
    const exported = await adminCall(emu, 'GET', '/_emulator/export');
    expect(exported.status).toBe(200);
    const logged = emu.deliveries.list();
    expect(logged.length).toBe(2);
    const installed = logged.find((d) => d.type === 'PLUGIN_INSTALLED')!;

    const { page, consoleErrors } = await openDashboard(emu, `deliveries/${installed.id}`);
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    const detail = page.getByRole('complementary', { name: `Delivery ${installed.id}` });
    await detail.getByRole('button', { name: 'Resend' }).waitFor();
    expect(await detail.getByRole('button', { name: 'Resend' }).isEnabled()).toBe(true);

    expect((await adminCall(emu, 'POST', '/_emulator/reset')).status).toBe(200);
    // Without a reload: the list is read again (empty), the open delivery says it is gone and offers no resend.
    await expect.poll(() => bodyRows(page).count()).toBe(0);
    await page.getByText('0 shown').waitFor();
    await detail.getByText('This delivery no longer exists').waitFor();
    expect(await detail.getByRole('button', { name: 'Resend' }).isDisabled()).toBe(true);
    expect(
      await page.getByRole('status').filter({ hasText: 'The emulator was reset' }).count(),
    ).toBe(1);
    await screenshot(page, 'deliveries-after-reset');

    // An import of the export brings them back, again without a reload.
    expect(
      (await adminCall(emu, 'POST', '/_emulator/import', { body: exported.body.data })).status,
    ).toBe(200);
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    await detail.getByRole('button', { name: 'Resend' }).waitFor();
    expect(await detail.getByRole('button', { name: 'Resend' }).isEnabled()).toBe(true);
    await page.getByRole('status').filter({ hasText: 'imported' }).waitFor();
    // The 404 of the delivery read after the reset is expected: the browser logs it as a failed resource.
    expectNoConsoleErrors(consoleErrors.filter((e) => !e.includes('404')));
  });

  it('a link to a delivery that does not exist says so, with Resend disabled', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries/dlv_missing');
    const detail = page.getByRole('complementary', { name: 'Delivery dlv_missing' });
    await detail.getByText('This delivery no longer exists').waitFor();
    expect(await detail.getByRole('button', { name: 'Resend' }).isDisabled()).toBe(true);
    // The 404 the page read is expected: the browser logs it as a failed resource.
    expectNoConsoleErrors(consoleErrors.filter((e) => !e.includes('404')));
  });
});
