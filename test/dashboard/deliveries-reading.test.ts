import { adminCall, emulator } from '../kit/index.js';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { install, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// What the delivery log tells a person at a glance: a retried delivery says after how many
// attempts (in full, to a screen reader too), the time column has the date on other days, faulted
// deliveries and resends are marked, a resend is read under its event beside the original, long
// bodies start collapsed, and a 413 names the limit.

let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;
let installedId: string;
let firstInstall = true;
const LONG_ANSWER = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`key${i}`, i]));

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000, schedule: [200] } });
  hook = await WebhookServer.start((event, received) => {
    if (event.type === 'WEBHOOK_CHALLENGE')
      return { status: 200, body: { challenge: (event.data as { challenge: string }).challenge } };
    // The first PLUGIN_INSTALLED attempt fails, the retry succeeds with a long answer.
    if (event.type === 'PLUGIN_INSTALLED' && firstInstall) {
      firstInstall = false;
      return { status: 503, body: { error: 'starting up' } };
    }
    void received;
    return { status: 200, body: LONG_ANSWER };
  });
  const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: 'Reading plugin',
  });
  pluginId = plugin.id;
  const agentId = emu.agentId!;
  await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
    name: 'On the agent',
    pluginId,
    events: [],
    scopes: [],
  }).catch(() => undefined);
  // Waits for the retry (200 ms after the failed first attempt); bounded.
  for (let tries = 0; tries < 100; tries++) {
    const found = emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED');
    if (found?.status === 'delivered') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  installedId = emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED')!.id;
});
afterAll(async () => {
  await hook?.close();
});

function row(page: Page, deliveryId: string): Locator {
  return page
    .getByRole('table', { name: 'Deliveries' })
    .locator('[role=row].dl-body-row', { hasText: deliveryId });
}

/** Whether an element's content fits its box (nothing cut off by an ellipsis). */
function fits(cell: Locator): Promise<boolean> {
  return cell.evaluate(
    (el) =>
      (el as unknown as { scrollWidth: number }).scrollWidth <=
      (el as unknown as { clientWidth: number }).clientWidth,
  );
}

describe('dashboard: reading the delivery log', () => {
  it('a retried delivery says after how many attempts, whole; another day shows its date', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    const status = row(page, installedId).getByRole('cell').nth(1);
    await status.waitFor();
    expect(await status.textContent()).toContain('delivered');
    expect(await status.textContent()).toContain('after 2 attempts');
    expect(await fits(status), 'the status cell is not cut off').toBe(true);

    // A delivery of another day (an imported store): the date is in the cell, the full time in its title.
    const exported = await adminCall(emu, 'GET', '/_emulator/export');
    const store = exported.body.data;
    for (const d of store.collections.deliveries) {
      if (d.id === installedId) d.createdAt = '2025-03-04T05:06:07.000Z';
    }
    expect((await adminCall(emu, 'POST', '/_emulator/import', { body: store })).status).toBe(200);
    const time = row(page, installedId).getByRole('cell').first();
    await expect.poll(() => time.textContent()).toBe('2025-03-04');
    expect(await time.getAttribute('title')).toMatch(/^2025-03-04 \d\d:\d\d:07/);
    expectNoConsoleErrors(consoleErrors);
  });

  it('a resend with faults injected is marked, and read under its event beside the original; long bodies start collapsed', async () => {
    expect(
      (await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'delay=1-2ms' } }))
        .status,
    ).toBe(200);
    const resent = await adminCall(emu, 'POST', `/_emulator/deliveries/${installedId}/redeliver`);
    expect(resent.status, JSON.stringify(resent.body)).toBeLessThan(300);
    expect(
      (await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'off' } })).status,
    ).toBe(200);
    const resendId = resent.body.data.id as string;
    await expect.poll(() => emu.deliveries.get(resendId)?.faults?.length ?? 0).toBeGreaterThan(0);

    const { page, consoleErrors } = await openDashboard(emu, `deliveries/${resendId}`);
    const type = row(page, resendId).getByRole('cell').nth(2);
    await expect.poll(() => type.textContent()).toContain(`resend of ${installedId}`);
    expect(await type.textContent()).toContain('faults injected');
    expect(await type.getAttribute('title')).toBe(`resend of ${installedId}; faults injected`);

    const detail = page.getByRole('complementary', { name: `Delivery ${resendId}` });
    const group = detail.getByRole('region', { name: /Deliveries of this event/ });
    await group.waitFor();
    expect(await group.getByRole('link', { name: installedId }).count()).toBe(1);
    expect(await group.textContent()).toContain('original');
    await screenshot(page, 'deliveries-resend-marked');

    const answer = detail.getByRole('group', { name: /Response body of attempt 1/ });
    await answer.waitFor();
    expect(await answer.textContent()).not.toContain('key59');
    const more = detail.getByRole('button', { name: /Show all 62 lines/ });
    await more.click();
    expect(await answer.textContent()).toContain('key59');

    // The filter keeps only the deliveries into which faults were injected.
    const bodyRows = page
      .getByRole('table', { name: 'Deliveries' })
      .locator('[role=row].dl-body-row');
    await expect.poll(() => bodyRows.count()).toBeGreaterThan(1);
    await page.getByRole('checkbox', { name: 'Faults injected' }).check();
    await expect.poll(() => bodyRows.count()).toBe(1);
    expect(await bodyRows.first().textContent()).toContain(resendId);
    expect(new URL(page.url()).hash).toContain('faulted=true');
    expectNoConsoleErrors(consoleErrors);
  });

  it('a body over the limit is refused with a 413 that names the limit', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'data/plugins');
    await page.getByRole('button', { name: 'New plugin' }).click();
    const body = JSON.stringify({
      name: 'Too big',
      type: 'EVENT_HANDLER',
      description: 'x'.repeat(1_100_000),
    });
    await page.getByLabel(/^New plugin/).fill(body);
    await page.getByRole('button', { name: 'Create plugin' }).click();
    const alert = page.getByRole('alert').filter({ hasText: '413' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("larger than this endpoint's limit of 1 MiB");
    // The browser logs the refused request as a failed resource.
    expectNoConsoleErrors(consoleErrors.filter((e) => !e.includes('413')));
  });
});
