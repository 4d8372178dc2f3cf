import { adminCall, emulator } from '../kit/index.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { install, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { axeContext, findingsInBothSchemes } from './helpers/axe.js';
import { expectNoConsoleErrors, openDashboard } from '../kit/browser.js';

// axe on the states a person reaches only by doing something: the Import confirmation, an upload
// refused by its name, a resend with injected faults read under its event (its tags, the event's
// deliveries, a collapsed body), in light and dark.

describe('dashboard: axe on states reached by acting', () => {
  it('finds nothing serious in the Import confirmation, a refused upload, and a tagged resend', async () => {
    const emu = await emulator({ delivery: { timeoutMs: 3000 } });
    const hook = await WebhookServer.start((event) =>
      event.type === 'WEBHOOK_CHALLENGE'
        ? { status: 200, body: { challenge: (event.data as { challenge: string }).challenge } }
        : {
            status: 200,
            body: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`key${i}`, i])),
          },
    );
    onTestFinished(() => hook.close());
    const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      name: 'Axe plugin',
    });
    const agentId = emu.agentId!;
    await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
      name: 'On the agent',
      pluginId: plugin.id,
      events: [],
      scopes: [],
    });
    const original = emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED')!;
    await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'delay=1-2ms' } });
    const resent = await adminCall(emu, 'POST', `/_emulator/deliveries/${original.id}/redeliver`);
    await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'off' } });
    expect(resent.status, JSON.stringify(resent.body)).toBeLessThan(300);
    const exported = await adminCall(emu, 'GET', '/_emulator/export');

    const context = await axeContext({ width: 1280, height: 800 });
    const { page, consoleErrors } = await openDashboard(emu, 'overview', context);
    const findings: string[] = [];

    await page.getByLabel('Import a store from a file').setInputFiles({
      name: 'store.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(exported.body.data)),
    });
    await page.getByRole('form', { name: /Replace the store with/ }).waitFor();
    findings.push(...(await findingsInBothSchemes(page, 'import confirmation')));

    await page.goto(new URL('#/uploads', page.url()).href);
    await page.getByLabel('Choose files to upload').setInputFiles({
      name: 'a|b.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('x'),
    });
    await page.getByRole('alert').waitFor();
    findings.push(...(await findingsInBothSchemes(page, 'refused upload')));

    await page.goto(new URL(`#/deliveries/${resent.body.data.id}`, page.url()).href);
    await page.getByRole('region', { name: /Deliveries of this event/ }).waitFor();
    await page
      .getByRole('button', { name: /Show all/ })
      .first()
      .waitFor();
    findings.push(...(await findingsInBothSchemes(page, 'resend detail')));

    expect(findings).toEqual([]);
    expectNoConsoleErrors(consoleErrors);
  });
});
