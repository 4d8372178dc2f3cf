import { sampleData } from '../../src/trigger/fixtures.js';
import { call, adminCall, emulator } from '../kit/index.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { verifyWebhook } from '../../src/shared/webhooks/index.js';
import { WebhookServer, answerProperly } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// The Deliveries and Trigger views in a real Chromium, against a real emulator and a real webhook
// receiver: what the plugin got is compared with what the page shows and copies.

const run = promisify(execFile);
/** A message text that would break out of a carelessly quoted shell command. */
const HOSTILE_TEXT = `it's "quoted"\n$(touch /tmp/plugsmith-pwned) \`id\` $HOME '\\''`;

let emu: Emulator;
let hook: WebhookServer;
let plugin: { id: string; webhookSecret: string; orgId: string };
let instanceId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  hook = await WebhookServer.start((event, received) =>
    event.type === 'WEBHOOK_CHALLENGE'
      ? answerProperly(event, received)
      : { status: 200, headers: { 'x-receiver': 'test' }, body: { received: event.id } },
  );
  const created = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
    bearer: emu.token,
    body: {
      name: 'Dash plugin',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
      webhookUrl: hook.url,
    },
  });
  expect(created.status).toBe(201);
  plugin = created.body.data;
  expect(
    (await call(emu.url, 'POST', `/api/plugins/${plugin.id}/verify-webhook`, { bearer: emu.token }))
      .body.data.verified,
  ).toBe(true);
  const agentId = emu.agentId!;
  const installed = await call(emu.url, 'POST', `/api/agents/${agentId}/plugins`, {
    bearer: emu.token,
    body: {
      name: 'On the agent',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
    },
  });
  expect(installed.status).toBe(201);
  instanceId = installed.body.data.id;
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: instanceId });
});
afterAll(async () => {
  await hook?.close();
});

/** The body rows the table has in the DOM (the header row left out). */
function bodyRows(page: import('playwright-core').Page) {
  return page.getByRole('table', { name: 'Deliveries' }).locator('[role=row].dl-body-row');
}

describe('dashboard: Trigger', () => {
  it('refuses a payload that does not fit the event schema, inline and sending nothing; a valid one opens its delivery', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'trigger');
    await page.getByLabel('Plugin', { exact: true }).selectOption(plugin.id);
    await page.getByLabel('Event kind', { exact: true }).selectOption('AGENT_MESSAGE_RECEIVED');
    await page.getByLabel('Instance', { exact: true }).selectOption(instanceId);
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    // Prefilled from the fixture plugsmith trigger uses.
    await expect
      .poll(() => payload.inputValue())
      .toContain('Hello! Can you help me find the onboarding guide?');
    const sample = JSON.parse(await payload.inputValue());
    expect(sample.agentId).toBe(emu.agentId!);

    const before = hook.received.length;
    const logged = emu.deliveries.list().length;
    await payload.fill(
      JSON.stringify(
        { ...sample, agentId: 7, message: { ...sample.message, sender: 'ROBOT' } },
        null,
        2,
      ),
    );
    await page.getByRole('button', { name: 'Send event' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      "data does not match the AGENT_MESSAGE_RECEIVED event's schema",
    );
    expect(await alert.textContent()).toContain('data.agentId');
    expect(await alert.textContent()).toContain('data.message.sender');
    await screenshot(page, 'trigger-invalid');
    expect(hook.received.length).toBe(before);
    expect(emu.deliveries.list().length).toBe(logged);

    await page.getByRole('button', { name: 'Reset payload' }).click();
    await payload.fill(
      JSON.stringify({ ...sample, message: { ...sample.message, content: HOSTILE_TEXT } }, null, 2),
    );
    await page.getByRole('button', { name: 'Send event' }).click();
    await page.waitForURL(/#\/deliveries\/dlv_/);
    const deliveryId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const delivery = emu.deliveries.get(deliveryId)!;
    expect(delivery).toMatchObject({
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: plugin.id,
      status: 'delivered',
    });
    expect((delivery.event.data as { message: { content: string } }).message.content).toBe(
      HOSTILE_TEXT,
    );
    await page.getByRole('region', { name: 'Attempt 1' }).waitFor();
    expectNoConsoleErrors(consoleErrors);
  });
});

describe('dashboard: Deliveries', () => {
  it('shows a new delivery live with its signed request and the answer; resend adds one; copy as curl replays it', async () => {
    const { page, context, consoleErrors } = await openDashboard(emu, 'deliveries');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(emu.url).origin,
    });
    await bodyRows(page).first().waitFor();
    const sample = {
      agentId: 'agent_x',
      characterId: 'char_x',
      conversationId: 'conv_x',
      message: {
        id: 'msg_x',
        conversationId: 'conv_x',
        sender: 'USER',
        type: 'TEXT',
        content: HOSTILE_TEXT,
        attachments: [],
        isStreaming: false,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      },
    };
    const emitted = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: plugin.id,
        pluginInstanceId: instanceId,
        data: sample,
        mode: 'ASYNC',
      },
    });
    expect(emitted.status).toBe(201);
    const id: string = emitted.body.data.id;
    // Live over the stream: the row shows up (delivered) without a reload, within a second.
    const row = bodyRows(page).filter({ hasText: id });
    await row.filter({ hasText: 'delivered' }).waitFor({ timeout: 1000 });
    await row.getByRole('link', { name: id }).click();

    const detail = page.getByRole('complementary', { name: `Delivery ${id}` });
    const attempt = detail.getByRole('region', { name: 'Attempt 1' });
    await attempt.waitFor();
    const received = hook.received.find((r) => r.event.id === emitted.body.data.eventId)!;
    const requestHeaders = attempt.getByRole('table', { name: 'Request headers of attempt 1' });
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expect(
        await requestHeaders
          .getByRole('row')
          .filter({ hasText: name })
          .getByRole('cell')
          .nth(1)
          .textContent(),
      ).toBe(received.headers[name]);
    }
    expect(
      await attempt.getByRole('table', { name: 'Response headers of attempt 1' }).textContent(),
    ).toContain('x-receiver');
    expect(await attempt.getByLabel('Response body of attempt 1').textContent()).toContain(
      emitted.body.data.eventId,
    );
    expect(JSON.parse((await detail.getByLabel('Signed body').textContent())!)).toEqual(
      JSON.parse(received.body),
    );
    await screenshot(page, 'deliveries-detail');

    // Copy body: exactly the signed bytes.
    await detail.getByRole('button', { name: 'Copy body' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(received.body);

    // Copy as curl, run by sh against the real receiver: it gets the same bytes, and the signature verifies.
    await attempt.getByRole('button', { name: 'Copy as curl' }).click();
    const curl = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(await attempt.getByLabel('curl command of attempt 1').inputValue()).toBe(curl);
    const count = hook.received.length;
    await run('sh', ['-c', curl]);
    expect(hook.received.length).toBe(count + 1);
    const replayed = hook.received.at(-1)!;
    expect(replayed.body).toBe(received.body);
    expect(
      verifyWebhook(replayed.body, replayed.headers as Record<string, string>, plugin.webhookSecret)
        .id,
    ).toBe(emitted.body.data.eventId);

    // Resend: a new delivery of the same event, opened, with its own attempt.
    await detail.getByRole('button', { name: 'Resend' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/deliveries/') && !url.hash.endsWith(id));
    const resentId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const resent = page.getByRole('complementary', { name: `Delivery ${resentId}` });
    await resent.getByRole('region', { name: 'Attempt 1' }).waitFor();
    expect(await resent.textContent()).toContain(`Resend of${id}`);
    await bodyRows(page).filter({ hasText: resentId }).waitFor();
    expect(hook.received.filter((r) => r.event.id === emitted.body.data.eventId)).toHaveLength(3);
    await screenshot(page, 'deliveries');
    expectNoConsoleErrors(consoleErrors);
  });

  it('narrows the table by event kind, status, plugin and text', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    await bodyRows(page).first().waitFor();
    const all = emu.deliveries.list();
    const types = new Set(all.map((d) => d.type));
    expect(types.size).toBeGreaterThan(2);
    expect(await bodyRows(page).count()).toBe(all.length);

    await page.getByLabel('Event kind', { exact: true }).selectOption('WEBHOOK_CHALLENGE');
    await expect
      .poll(() => bodyRows(page).count())
      .toBe(all.filter((d) => d.type === 'WEBHOOK_CHALLENGE').length);
    expect(await bodyRows(page).allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('WEBHOOK_CHALLENGE')]),
    );
    for (const text of await bodyRows(page).allTextContents())
      expect(text).toContain('WEBHOOK_CHALLENGE');

    await page.getByLabel('Event kind', { exact: true }).selectOption('');
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await expect
      .poll(() => bodyRows(page).count())
      .toBe(all.filter((d) => d.status === 'failed').length);

    await page.getByLabel('Status', { exact: true }).selectOption('');
    const target = all.find((d) => d.type === 'AGENT_MESSAGE_RECEIVED')!;
    await page.getByLabel('Search', { exact: true }).fill(target.id.slice(-10).toUpperCase());
    await expect.poll(() => bodyRows(page).count()).toBe(1);
    expect(await bodyRows(page).first().textContent()).toContain(target.id);

    await page.getByLabel('Search', { exact: true }).fill('');
    // The plugin filter names the plugin beside its id.
    await page
      .getByLabel('Plugin', { exact: true })
      .selectOption({ label: `Dash plugin (${plugin.id})` });
    await expect
      .poll(() => bodyRows(page).count())
      .toBe(all.filter((d) => d.pluginId === plugin.id).length);
    expect(await bodyRows(page).first().textContent()).toContain('Dash plugin');
    await page.getByLabel('Search', { exact: true }).fill('no-such-delivery');
    await page.getByText('No deliveries match these filters').waitFor();
    expectNoConsoleErrors(consoleErrors);
  });

  it('narrows the table to the scenarios whose name holds the text typed, in any case, live and across a reload', async () => {
    const emitUnder = async (scenario: string | null) => {
      expect(
        (await adminCall(emu, 'PUT', '/_emulator/scenario', { body: { name: scenario } })).status,
      ).toBe(200);
      const emitted = await adminCall(emu, 'POST', '/_emulator/events', {
        body: {
          type: 'AGENT_MESSAGE_RECEIVED',
          pluginId: plugin.id,
          pluginInstanceId: instanceId,
          data: sampleData('AGENT_MESSAGE_RECEIVED', {
            agentId: 'agent_acme',
            messageId: 'msg_scenario',
            text: 'hi',
          }),
        },
      });
      expect(emitted.status).toBe(201);
      return emitted.body.data.id as string;
    };
    const checkout = [await emitUnder('checkout flow'), await emitUnder('Checkout, then refund')];
    const refund = await emitUnder('refund flow');
    await emitUnder(null);

    const { page, consoleErrors } = await openDashboard(emu, 'deliveries');
    await bodyRows(page).first().waitFor();
    // Part of a name, in another case: both checkout scenarios and nothing else.
    await page.getByLabel('Scenario', { exact: true }).fill('CHECKOUT');
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    const shown = (await bodyRows(page).allTextContents()).join('\n');
    for (const id of checkout) expect(shown).toContain(id);
    await expect.poll(() => new URL(page.url()).hash).toContain('scenario=CHECKOUT');

    // A delivery of a matching scenario emitted while the filter is set shows up live; others do not.
    const live = await emitUnder('second checkout');
    await emitUnder('unrelated');
    await emitUnder(null);
    await expect.poll(() => bodyRows(page).count()).toBe(3);
    expect(await bodyRows(page).first().textContent()).toContain(live);

    await page.reload();
    await expect.poll(() => bodyRows(page).count()).toBe(3);
    expect(await page.getByLabel('Scenario', { exact: true }).inputValue()).toBe('CHECKOUT');

    await page.getByLabel('Scenario', { exact: true }).fill('flow');
    await expect.poll(() => bodyRows(page).count()).toBe(2);
    const flows = (await bodyRows(page).allTextContents()).join('\n');
    for (const id of [checkout[0], refund]) expect(flows).toContain(id);

    await page.getByLabel('Scenario', { exact: true }).fill('no such scenario');
    await page.getByText('No deliveries match these filters').waitFor();
    expectNoConsoleErrors(consoleErrors);
  });

  it('renders 10,000 stored deliveries with a few dozen rows in the DOM, and scrolls to the oldest', async () => {
    const big = await emulator();
    await storeDeliveries(big, 10_000);
    const { page, consoleErrors } = await openDashboard(big, 'deliveries');
    await bodyRows(page).first().waitFor();
    await page.getByText('10,000 shown').waitFor({ timeout: 20_000 });
    const inDom = await bodyRows(page).count();
    expect(inDom).toBeGreaterThan(5);
    expect(inDom).toBeLessThan(100);
    expect(await bodyRows(page).first().textContent()).toContain('dlv_bulk_09999');
    // Browser code as a string: the tests' tsconfig has no DOM types.
    await page.evaluate(
      "document.querySelector('[data-testid=deliveries-scroll]').scrollTop = 1e9",
    );
    await bodyRows(page).filter({ hasText: 'dlv_bulk_00000' }).waitFor();
    expect(await bodyRows(page).count()).toBeLessThan(100);
    await screenshot(page, 'deliveries-10k');
    expectNoConsoleErrors(consoleErrors);
  });
});

/** Puts `count` delivered deliveries in the emulator's log through the admin import (as a restored data dir would have them). */
async function storeDeliveries(target: Emulator, count: number): Promise<void> {
  const exported = await adminCall(target, 'GET', '/_emulator/export');
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const deliveries = Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i * 1000).toISOString();
    const n = String(i).padStart(5, '0');
    const eventId = `evt_bulk_${n}`;
    return {
      id: `dlv_bulk_${n}`,
      eventId,
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: `plg_bulk_${i % 7}`,
      pluginInstanceId: `pi_bulk_${i % 7}`,
      orgId: 'org_bulk',
      url: 'http://127.0.0.1:9/webhook',
      event: {
        id: eventId,
        type: 'AGENT_MESSAGE_RECEIVED',
        createdAt: at,
        pluginId: `plg_bulk_${i % 7}`,
        pluginInstanceId: `pi_bulk_${i % 7}`,
        orgId: 'org_bulk',
        data: { text: `message ${i}` },
      },
      status: 'delivered',
      mode: 'ASYNC',
      retries: true,
      attempts: [
        {
          number: 1,
          startedAt: at,
          url: 'http://127.0.0.1:9/webhook',
          webhookTimestamp: String(Math.floor(Date.parse(at) / 1000)),
          durationMs: 3,
          responseStatus: 200,
          responseBody: '{}',
          error: null,
          nextAttemptAt: null,
        },
      ],
      nextAttemptAt: null,
      redeliveryOf: null,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      createdAt: at,
      updatedAt: at,
    };
  });
  const body = {
    ...exported.body.data,
    collections: { ...exported.body.data.collections, deliveries: deliveries },
  };
  const imported = await adminCall(target, 'POST', '/_emulator/import', { body: body });
  expect(imported.status).toBe(200);
}
