import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

// A plugin name holding a RIGHT-TO-LEFT OVERRIDE (U+202E) must not reverse what the page prints
// beside it: every name from data is bidi-isolated (<bdi> in markup; FIRST STRONG ISOLATE … POP
// DIRECTIONAL ISOLATE inside an option's plain text).

const RLO = '\u202e';
let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  hook = await WebhookServer.start();
  const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: `Weather ${RLO}reversed`,
  });
  pluginId = plugin.id;
});
afterAll(async () => {
  await hook?.close();
});

/** The horizontal positions of the first and last characters of an element's text, as laid out. */
function firstAndLastX(element: Locator): Promise<{ first: number; last: number }> {
  // The DOM as far as this needs it: the tests' tsconfig has no DOM library.
  interface TextNode {
    length: number;
  }
  interface RangeLike {
    setStart(node: TextNode, offset: number): void;
    setEnd(node: TextNode, offset: number): void;
    getBoundingClientRect(): { left: number };
  }
  return element.evaluate((node) => {
    const text = (node as unknown as { firstChild: TextNode }).firstChild;
    const page = globalThis as unknown as { document: { createRange(): RangeLike } };
    const range = page.document.createRange();
    range.setStart(text, 0);
    range.setEnd(text, 1);
    const first = range.getBoundingClientRect().left;
    range.setStart(text, text.length - 1);
    range.setEnd(text, text.length);
    const last = range.getBoundingClientRect().left;
    return { first, last };
  });
}

describe('dashboard: a right-to-left override in a plugin name', () => {
  it('leaves the plugin id beside it in reading order (Deliveries table), and isolates it in pickers', async () => {
    expect(emu.deliveries.list().some((d) => d.pluginId === pluginId)).toBe(true);
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    const table = page.getByRole('table', { name: 'Deliveries' });
    const id = table.locator('span.mono', { hasText: pluginId }).first();
    await id.waitFor();
    const { first, last } = await firstAndLastX(id);
    expect(first, `the id ${pluginId} is laid out left to right`).toBeLessThan(last);

    // The plugin filter's option: the name is isolated from the id that follows it.
    const option = page.locator('select[aria-label="Plugin"] option', { hasText: pluginId });
    // The option names the plugin once the plugins are listed (until then it shows the id alone).
    await page
      .locator('select[aria-label="Plugin"] option', { hasText: 'reversed' })
      .waitFor({ state: 'attached' });
    expect(await option.textContent()).toBe(`\u2068Weather ${RLO}reversed\u2069 (${pluginId})`);

    await page.goto(new URL('#/trigger', page.url()).href);
    const triggerOption = page.locator('select[aria-label="Plugin"] option', {
      hasText: pluginId,
    });
    await triggerOption.waitFor({ state: 'attached' });
    expect(await triggerOption.textContent()).toBe(
      `\u2068Weather ${RLO}reversed\u2069 (${pluginId})`,
    );

    // The Data view's table: the name's cell is isolated from the cells around it.
    await page.goto(new URL('#/data/plugins', page.url()).href);
    const cell = page.getByRole('button', { name: /Open plugin/ }).first();
    await cell.waitFor();
    expect(await cell.locator('bdi').count()).toBe(1);
    expectNoConsoleErrors(consoleErrors);
  });
});
