import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Emulator } from '../../emulator/index.js';
import { answerProperly, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { axeContext, seriousFindings } from './helpers/axe.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { call, emulator, until } from '../kit/index.js';

// Every view at a phone's width and a wide screen, light and dark: nothing overflows the page
// sideways, axe finds nothing serious or critical, and the keyboard reaches what matters.

let emu: Emulator;
let hook: WebhookServer;
let plugin: { id: string };
let deliveryId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 2000, schedule: [60_000] } });
  hook = await WebhookServer.start((event, received) =>
    event.type === 'PLUGIN_INSTALLED'
      ? {
          status: 500,
          headers: { 'content-type': 'text/html' },
          body:
            '<html><body><h1>Internal error</h1><p>a long line '.repeat(8) + '</p></body></html>',
        }
      : answerProperly(event, received),
  );
  plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: 'Layout plugin with a rather long name',
    events: ['AGENT_MESSAGE_RECEIVED'],
  });
  const installed = await call(emu.url, 'POST', `/api/agents/${emu.agentId!}/plugins`, {
    bearer: emu.token!,
    body: { name: 'i', pluginId: plugin.id, events: [], scopes: [] },
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  // Its PLUGIN_INSTALLED is answered 500, and its retry is a minute away: the first attempt is the one shown.
  const attempted = () =>
    emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED' && d.attempts.length > 0);
  await until('the PLUGIN_INSTALLED attempt was logged', () => attempted() !== undefined);
  deliveryId = attempted()!.id;
});
afterAll(async () => {
  await hook?.close();
});

const VIEWS = () => [
  'overview',
  'deliveries',
  `deliveries/${deliveryId}`,
  'data/plugins',
  `data/plugins/${plugin.id}`,
  'data/repositories',
  'trigger',
  'chat',
  'uploads',
  'install',
  `install/${plugin.id}`,
  'no-such-page',
];

/** Waits until the view has drawn its content (a heading in main). */
async function settle(page: Page): Promise<void> {
  await page.locator('main h1, main h2').first().waitFor();
  await page.waitForTimeout(300);
}

describe('dashboard: layout and accessibility', () => {
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`at ${width} px, light and dark: no sideways overflow on any view, and axe finds nothing serious`, async () => {
      const context = await axeContext({ width, height });
      const { page, consoleErrors } = await openDashboard(emu, undefined, context);
      const findings: string[] = [];
      for (const view of VIEWS()) {
        await page.goto(new URL(`#/${view}`, page.url()).href);
        await settle(page);
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          const overflow = (await page.evaluate(
            '[document.scrollingElement.scrollWidth, window.innerWidth]',
          )) as [number, number];
          expect(
            overflow[0],
            `${view} at ${width} px (${scheme}) is ${overflow[0]} px wide`,
          ).toBeLessThanOrEqual(overflow[1]);
          for (const f of await seriousFindings(page)) findings.push(`${view} ${scheme}: ${f}`);
          await screenshot(
            page,
            `layout-${width}-${scheme}-${view.replace(/[/]/g, '_').replace(/dlv_\w+|plg_\w+/, 'record')}`,
            { fullPage: true },
          );
        }
        await page.emulateMedia({ colorScheme: 'light' });
      }
      expect(findings).toEqual([]);
      expectNoConsoleErrors(consoleErrors);
    });
  }

  it('keyboard: a skip link, rows reached with the arrow keys, focus moves into the opened delivery, Escape closes it', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    const rows = page.getByRole('table', { name: 'Deliveries' }).locator('[role=row].dl-body-row');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);

    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await skip.waitFor();
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');

    await rows.first().focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate('document.activeElement.dataset.index')).toBe('1');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.evaluate('document.activeElement.dataset.index')).toBe('0');
    const firstId = (await rows.first().getByRole('link').textContent())!;
    await page.keyboard.press('Enter');
    const detail = page.getByRole('complementary', { name: `Delivery ${firstId}` });
    await detail.waitFor();
    await expect
      .poll(() =>
        page.evaluate(`document.querySelector('aside.dl-detail').contains(document.activeElement)`),
      )
      .toBe(true);
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
    expect(new URL(page.url()).hash).toBe('#/deliveries');
    expectNoConsoleErrors(consoleErrors);
  });
});
