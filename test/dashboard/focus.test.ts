import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { install, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

// Where the focus and the scroll go when something opens or closes: a closed delivery gives the
// focus back to its row (the arrow keys go on working), Edit moves the focus into the editor and
// brings it into view, and on a phone a tapped delivery is scrolled to.

let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  hook = await WebhookServer.start();
  const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: 'Focus plugin',
  });
  pluginId = plugin.id;
  const agentId = emu.agentId!;
  await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
    name: 'On the agent',
    pluginId,
    events: [],
    scopes: [],
  });
});
afterAll(async () => {
  await hook?.close();
});

function bodyRows(page: Page): Locator {
  return page.getByRole('table', { name: 'Deliveries' }).locator('[role=row].dl-body-row');
}

function focusedIndex(page: Page): Promise<unknown> {
  return page.evaluate('document.activeElement?.dataset?.index ?? null');
}

/** Whether the element's top edge is inside the viewport. */
async function topInView(page: Page, element: Locator): Promise<boolean> {
  const box = await element.boundingBox();
  const height = (await page.evaluate('innerHeight')) as number;
  return box !== null && box.y >= 0 && box.y < height;
}

describe('dashboard: focus and scroll when things open and close', () => {
  it('Escape on a delivery gives the focus back to its row, and the arrow keys go on working', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    await bodyRows(page).first().focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focusedIndex(page)).toBe('1');
    await page.keyboard.press('Enter');
    const detail = page.locator('aside.dl-detail');
    await detail.waitFor();
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
    await expect.poll(() => focusedIndex(page)).toBe('1');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => focusedIndex(page)).toBe('0');
    expectNoConsoleErrors(consoleErrors);
  });

  it('Edit moves the focus into the editor and brings it into view; Cancel gives it back to Edit', async () => {
    const { page, consoleErrors } = await openDashboard(emu, `data/plugins/${pluginId}`);
    await page.setViewportSize({ width: 1280, height: 600 });
    const record = page.getByRole('article', { name: `Plugin ${pluginId}` });
    const edit = record.getByRole('button', { name: 'Edit plugin' });
    await edit.click();
    const editor = record.getByLabel(/^Edit plugin/);
    await editor.waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('TEXTAREA');
    await expect.poll(() => topInView(page, editor)).toBe(true);
    await record.getByRole('button', { name: 'Cancel edit' }).click();
    await expect
      .poll(() => page.evaluate('document.activeElement?.textContent'))
      .toBe('Edit plugin');
    expectNoConsoleErrors(consoleErrors);
  });

  it('at 390 px, a tapped row opens its delivery scrolled into view', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    await bodyRows(page).first().click();
    const detail = page.locator('aside.dl-detail');
    await detail.waitFor();
    await expect.poll(() => topInView(page, detail)).toBe(true);
    expectNoConsoleErrors(consoleErrors);
  });
});
