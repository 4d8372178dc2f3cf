import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { adminCall, install, verifiedPlugin, WebhookServer } from '../emulator/webhooks/helpers.js';
import { expectNoConsoleErrors, newContext, openDashboard } from './helpers/browser.js';

// axe on the states a person reaches only by doing something: the Import confirmation, an upload
// refused by its name, a resend with injected faults read under its event (its tags, the event's
// deliveries, a collapsed body), in light and dark.

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

async function seriousFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"')))
    await page.addScriptTag({ path: AXE });
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function bothSchemes(page: Page, state: string, findings: string[]): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const f of await seriousFindings(page)) findings.push(`${state} ${scheme}: ${f}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('dashboard: axe on states reached by acting', () => {
  it('finds nothing serious in the Import confirmation, a refused upload, and a tagged resend', async () => {
    const emu = await startEmulator({ delivery: { timeoutMs: 3000 } });
    onTestFinished(() => emu.close());
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
    const agentId = [...emu.services.db.agents.values()][0].id;
    await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
      name: 'On the agent',
      pluginId: plugin.id,
      events: [],
      scopes: [],
    });
    const original = emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED')!;
    await adminCall(emu, 'PUT', '/_emulator/faults', { profile: 'delay=1-2ms' });
    const resent = await adminCall(emu, 'POST', `/_emulator/deliveries/${original.id}/redeliver`);
    await adminCall(emu, 'PUT', '/_emulator/faults', { profile: 'off' });
    expect(resent.status, JSON.stringify(resent.body)).toBeLessThan(300);
    const exported = await adminCall(emu, 'GET', '/_emulator/export');

    // axe is injected as a script: the dashboard's CSP (rightly) refuses it unless bypassed for the test.
    const browser = (await newContext()).browser()!;
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width: 1280, height: 800 },
    });
    onTestFinished(() => context.close());
    const { page, consoleErrors } = await openDashboard(emu, 'overview', context);
    const findings: string[] = [];

    await page.getByLabel('Import a store from a file').setInputFiles({
      name: 'store.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(exported.body.data)),
    });
    await page.getByRole('form', { name: /Replace the store with/ }).waitFor();
    await bothSchemes(page, 'import confirmation', findings);

    await page.goto(new URL('#/uploads', page.url()).href);
    await page.getByLabel('Choose files to upload').setInputFiles({
      name: 'a|b.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('x'),
    });
    await page.getByRole('alert').waitFor();
    await bothSchemes(page, 'refused upload', findings);

    await page.goto(new URL(`#/deliveries/${resent.body.data.id}`, page.url()).href);
    await page.getByRole('region', { name: /Deliveries of this event/ }).waitFor();
    await page
      .getByRole('button', { name: /Show all/ })
      .first()
      .waitFor();
    await bothSchemes(page, 'resend detail', findings);

    expect(findings).toEqual([]);
    expectNoConsoleErrors(consoleErrors);
  });
});
