import { describe, expect, it, onTestFinished } from 'vitest';
import type { Page } from 'playwright-core';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { tempDir, call } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { install, WebhookServer, verifiedPlugin } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// A restart (the emulator stopped, and started again on the same port and data dir) is a new store
// as far as an open page knows: records may have changed while it was down. Reset and import have
// their own test (store-reset.test.ts); this one follows it for a restart.

function bodyRows(page: Page) {
  return page.getByRole('table', { name: 'Deliveries' }).locator('[role=row].dl-body-row');
}

/** What the browser logs, unasked, while the emulator is down: the cut streams and the refused reconnects. */
function outage(error: string): boolean {
  return /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|Failed to fetch/.test(
    error,
  );
}

/** An emulator on `dataDir` and `port`; the test closes and restarts it there itself (not the kit's emulator()). */
async function durable(dataDir: string, port: number): Promise<Emulator> {
  const emu = await startEmulator({ dataDir, port, delivery: { timeoutMs: 3000 } });
  return emu;
}

describe('dashboard: after a restart', () => {
  it('the open pages say so, read their lists again, and offer nothing on a record that went while it was down', async () => {
    const dataDir = await tempDir('plugsmith-dashboard-restart-');
    const port = await freePort();
    const hook = await WebhookServer.start();
    let emu = await durable(dataDir, port);
    let running: Emulator | null = emu;
    onTestFinished(async () => {
      await running?.close();
    });
    const token = emu.token!;
    const orgId = emu.orgId!;
    const agentId = emu.agentId!;
    await verifiedPlugin(emu, token, orgId, {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      name: 'Kept plugin',
    });
    const doomed = await verifiedPlugin(emu, token, orgId, {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      name: 'Doomed plugin',
    });
    await install(emu, hook, token, `/api/agents/${agentId}/plugins`, {
      name: 'On the agent',
      pluginId: doomed.id,
      events: [],
      scopes: [],
    });
    const installed = emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED')!;
    expect(emu.deliveries.list().length).toBe(3);

    // Two tabs of one browser (they share the session): the Deliveries list with a delivery open, and the doomed plugin in Data.
    const deliveries = await openDashboard(emu, `deliveries/${installed.id}`);
    const list = deliveries.page;
    await expect.poll(() => bodyRows(list).count()).toBe(3);
    const detail = list.getByRole('complementary', { name: `Delivery ${installed.id}` });
    await detail.getByRole('button', { name: 'Resend' }).waitFor();
    const data = await openDashboard(emu, `data/plugins/${doomed.id}`, deliveries.context);
    const record = data.page.getByRole('article', { name: `Plugin ${doomed.id}` });
    await record.getByRole('button', { name: 'Delete plugin' }).waitFor();
    await record.getByRole('button', { name: 'Edit plugin' }).waitFor();

    await emu.close();
    running = null;
    // The page notices the emulator went away (its live stream ended) and says how to bring it back.
    await list.getByRole('alert').filter({ hasText: 'The emulator cannot be reached' }).waitFor();
    await screenshot(list, 'deliveries-emulator-down');

    // While it is down, another run on the same data dir deletes the installed plugin (which sends PLUGIN_UNINSTALLED).
    const meanwhile = await durable(dataDir, 0);
    running = meanwhile;
    expect(
      (await call(meanwhile.url, 'DELETE', `/api/plugins/${doomed.id}`, { bearer: token })).status,
    ).toBe(200);
    await meanwhile.waitForDelivery({ type: 'PLUGIN_UNINSTALLED' });
    await meanwhile.close();
    running = null;

    emu = await durable(dataDir, port);
    running = emu;
    // Without a reload: the restart is reported, the outage notice goes, the list is read again (the uninstall is in it).
    await list.getByRole('status').filter({ hasText: 'The emulator restarted' }).waitFor();
    await expect
      .poll(() => list.getByRole('alert').filter({ hasText: 'cannot be reached' }).count())
      .toBe(0);
    await expect.poll(() => bodyRows(list).count()).toBe(4);
    await bodyRows(list).filter({ hasText: 'PLUGIN_UNINSTALLED' }).waitFor();
    await list.getByText('4 shown').waitFor();
    // The open delivery still exists: it is read again and may still be resent.
    await detail.getByRole('button', { name: 'Resend' }).waitFor();
    expect(await detail.getByRole('button', { name: 'Resend' }).isEnabled()).toBe(true);
    await screenshot(list, 'deliveries-after-restart');

    // The plugin that went while the emulator was down: its record says so and offers neither edit nor delete.
    await data.page.getByRole('status').filter({ hasText: 'The emulator restarted' }).waitFor();
    await record.getByText(`No plugin ${doomed.id} here`).waitFor();
    expect(await record.getByRole('button', { name: 'Delete plugin' }).count()).toBe(0);
    expect(await record.getByRole('button', { name: 'Edit plugin' }).count()).toBe(0);
    const plugins = data.page
      .getByRole('region', { name: 'Plugins' })
      .getByRole('table')
      .locator('tbody tr');
    await expect
      .poll(() => plugins.allInnerTexts())
      .toEqual([expect.stringContaining('Kept plugin')]);
    await screenshot(data.page, 'data-after-restart');

    expectNoConsoleErrors(deliveries.consoleErrors.filter((e) => !outage(e)));
    expectNoConsoleErrors(data.consoleErrors.filter((e) => !outage(e)));
  });
});
