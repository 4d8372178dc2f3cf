import { sampleData } from '../../src/trigger/fixtures.js';
import { adminCall, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Emulator } from '../../emulator/index.js';
import { answerProperly, install, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// Finding failures and acting on them from the Deliveries view: filters kept in the URL, the
// Overview's counters as links, retry now and cancel retries, and a bulk resend of a filter.

let emu: Emulator;
let hook: WebhookServer;
let plugin: { id: string };
let instanceId: string;
let answer = 200;

beforeAll(async () => {
  // Retries a minute apart: a failed delivery stays pending while the page acts on it.
  emu = await emulator({ delivery: { timeoutMs: 2000, schedule: [60_000, 60_000] } });
  hook = await WebhookServer.start((event, received) =>
    event.type === 'AGENT_MESSAGE_RECEIVED'
      ? { status: answer, body: { n: answer } }
      : answerProperly(event, received),
  );
  plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: 'Flaky receiver',
    events: ['AGENT_MESSAGE_RECEIVED'],
  });
  const agentId = emu.agentId!;
  instanceId = (
    await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
      name: 'i',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
    })
  ).instance.id;
});
afterAll(async () => {
  await hook?.close();
});

async function emit(status: number): Promise<{ id: string; status: string }> {
  answer = status;
  const data = sampleData('AGENT_MESSAGE_RECEIVED', {
    agentId: 'a',
    characterId: 'c',
    conversationId: 'v',
    messageId: 'm',
    text: 'hi',
  });
  const res = await adminCall(emu, 'POST', '/_emulator/events', {
    body: {
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: plugin.id,
      pluginInstanceId: instanceId,
      data,
    },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

function bodyRows(page: Page) {
  return page.getByRole('table', { name: 'Deliveries' }).locator('[role=row].dl-body-row');
}

describe('dashboard: acting on deliveries', () => {
  it('keeps the filters in the URL: a reload and a shared link show the same list', async () => {
    const failing = await emit(500);
    await emit(200);
    const { page, context, consoleErrors } = await openDashboard(emu, 'deliveries');
    await bodyRows(page).first().waitFor();
    await page.getByLabel('Plugin', { exact: true }).selectOption(plugin.id);
    await page.getByLabel('Last HTTP status').fill('5xx');
    await page.getByText('Failed at least once').click();
    await expect.poll(() => bodyRows(page).count()).toBe(1);
    await expect.poll(() => new URL(page.url()).hash).toContain('httpStatus=5xx');
    const url = page.url();
    expect(url).toContain('failedOnce=true');
    expect(url).toContain(`pluginId=${plugin.id}`);

    await page.reload();
    await expect.poll(() => bodyRows(page).count()).toBe(1);
    expect(await bodyRows(page).first().textContent()).toContain(failing.id);
    expect(await page.getByLabel('Last HTTP status').inputValue()).toBe('5xx');
    expect(await page.getByLabel('Failed at least once').isChecked()).toBe(true);

    // Shared: another browser (own storage), signed in, opens the link.
    const other = await openDashboard(emu);
    await other.page.goto(url);
    await expect.poll(() => bodyRows(other.page).count()).toBe(1);
    expect(await bodyRows(other.page).first().textContent()).toContain(failing.id);
    await screenshot(page, 'deliveries-filtered');
    void context;
    expectNoConsoleErrors([...consoleErrors, ...other.consoleErrors]);
  });

  it('Overview counters open the filtered list; retry now and cancel retries act on a pending delivery', async () => {
    const retried = await emit(503);
    const cancelled = await emit(503);
    const { page, consoleErrors } = await openDashboard(emu, 'overview');
    await page.getByRole('link', { name: /^Retrying: [1-9]/ }).click();
    await page.waitForURL(/#\/deliveries\?status=pending&minAttempts=1/);
    await expect.poll(() => bodyRows(page).count()).toBeGreaterThanOrEqual(2);
    for (const text of await bodyRows(page).allTextContents()) expect(text).toContain('pending');

    // Retry now: the receiver answers 200 this time; the row leaves the "retrying" list as delivered.
    await bodyRows(page).filter({ hasText: retried.id }).click();
    const detail = page.getByRole('complementary', { name: `Delivery ${retried.id}` });
    await detail
      .getByTestId('attempts-summary')
      .filter({ hasText: /attempt 1 of 3 failed, attempt 2 in \d+ s/ })
      .waitFor();
    answer = 200;
    await detail.getByRole('button', { name: 'Retry now' }).click();
    await detail
      .getByTestId('attempts-summary')
      .filter({ hasText: 'delivered after 2 attempts (an earlier attempt failed)' })
      .waitFor();
    expect(await detail.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    expect(emu.deliveries.get(retried.id)).toMatchObject({ status: 'delivered' });

    // Cancel retries: failed, never sent again.
    await page.keyboard.press('Escape');
    await page.waitForURL((u) => u.hash === '#/deliveries?status=pending&minAttempts=1');
    await bodyRows(page).filter({ hasText: cancelled.id }).click();
    const other = page.getByRole('complementary', { name: `Delivery ${cancelled.id}` });
    const sent = hook.received.length;
    await other.getByRole('button', { name: 'Cancel retries' }).click();
    await other
      .getByTestId('attempts-summary')
      .filter({ hasText: 'retries cancelled after attempt 1' })
      .waitFor();
    expect(emu.deliveries.get(cancelled.id)).toMatchObject({
      status: 'failed',
      nextAttemptAt: null,
    });
    expect(hook.received.length).toBe(sent);
    // Cancelled: no retry is to come, so none is named (not even on the attempt that scheduled it).
    await other.getByText('Retries cancelled', { exact: true }).waitFor();
    expect(await other.getByText(/Next retry/).count()).toBe(0);
    await screenshot(page, 'deliveries-cancelled');
    expectNoConsoleErrors(consoleErrors);
  });

  it('names the faults injected into a delivery in its detail', async () => {
    const on = await adminCall(emu, 'PUT', '/_emulator/faults', {
      body: { profile: 'delay=1-2ms' },
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    let faulted: { id: string };
    try {
      faulted = await emit(200);
    } finally {
      await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'off' } });
    }
    expect(emu.deliveries.get(faulted.id)?.faults?.[0]?.kind).toBe('delay');
    const { page, consoleErrors } = await openDashboard(emu, `deliveries/${faulted.id}`);
    const detail = page.getByRole('complementary', { name: `Delivery ${faulted.id}` });
    const list = detail.getByRole('list', { name: 'Faults injected' });
    await list.getByText(/^attempt 1: delayed \d ms$/).waitFor();
    expectNoConsoleErrors(consoleErrors);
  });

  it('names a held delivery as held rather than a next retry time', async () => {
    const held = await adminCall(emu, 'PUT', `/_emulator/plugins/${plugin.id}/hold`, {
      body: {
        forMs: 60_000,
      },
    });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    try {
      const waiting = await emit(200);
      expect(emu.deliveries.get(waiting.id)?.heldSince).toBeTruthy();
      const { page, consoleErrors } = await openDashboard(emu, `deliveries/${waiting.id}`);
      const detail = page.getByRole('complementary', { name: `Delivery ${waiting.id}` });
      await detail
        .getByTestId('held')
        .filter({ hasText: /^held since / })
        .waitFor();
      await detail
        .getByTestId('attempts-summary')
        .filter({ hasText: /^held since / })
        .waitFor();
      expectNoConsoleErrors(consoleErrors);
    } finally {
      await adminCall(emu, 'DELETE', `/_emulator/plugins/${plugin.id}/hold`);
    }
  });

  it('resends every delivery a filter shows, after a confirmation naming the count', async () => {
    const { page, consoleErrors } = await openDashboard(
      emu,
      `deliveries?pluginId=${plugin.id}&type=AGENT_MESSAGE_RECEIVED&httpStatus=5xx`,
    );
    const expected = emu.deliveries
      .list()
      .filter(
        (d) =>
          d.pluginId === plugin.id &&
          d.type === 'AGENT_MESSAGE_RECEIVED' &&
          String(d.attempts.at(-1)?.responseStatus ?? '').startsWith('5'),
      );
    expect(expected.length).toBeGreaterThan(1);
    await expect.poll(() => bodyRows(page).count()).toBe(expected.length);
    await page.getByRole('button', { name: `Resend ${expected.length} deliveries shown…` }).click();
    answer = 200;
    const before = emu.deliveries.list().length;
    await page
      .getByRole('button', { name: `Confirm: resend ${expected.length} deliveries` })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `Resent ${expected.length} deliveries` })
      .waitFor();
    await expect
      .poll(
        () =>
          emu.deliveries
            .list()
            .filter(
              (d) => d.status === 'delivered' && expected.some((e) => e.id === d.redeliveryOf),
            ).length,
      )
      .toBe(expected.length);
    expect(emu.deliveries.list().length).toBe(before + expected.length);
    expectNoConsoleErrors(consoleErrors);
  });
});
