import { call, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { WebhookServer, answerProperly } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// The Trigger view and a plugin's external events, in a real Chromium against a real emulator and
// a real webhook receiver. The platform never emits external events to plugins, so the view lists
// them in their own group and only checks a payload against the event's payloadSchema: it shows
// every schema error with its path, or valid, and sends nothing.

let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  hook = await WebhookServer.start((event, received) =>
    event.type === 'WEBHOOK_CHALLENGE'
      ? answerProperly(event, received)
      : { status: 200, body: {} },
  );
  const created = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
    bearer: emu.token,
    body: {
      name: 'Shop events',
      type: 'EVENT_HANDLER',
      events: [],
      scopes: [],
      webhookUrl: hook.url,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  pluginId = created.body.data.id;
  const event = await call(emu.url, 'POST', `/api/plugins/${pluginId}/external-events`, {
    bearer: emu.token,
    body: {
      name: 'order_placed',
      title: 'Order placed',
      description: 'A customer placed an order.',
      payloadSchema: {
        type: 'object',
        required: ['orderId', 'total'],
        properties: {
          orderId: { type: 'string', minLength: 1 },
          total: { type: 'number', minimum: 0 },
          note: { type: 'string' },
        },
      },
    },
  });
  expect(event.status, JSON.stringify(event.body)).toBe(201);
});
afterAll(async () => {
  await hook?.close();
});

describe('dashboard: Trigger with an external event', () => {
  it('checks the payload against its payloadSchema (each error with its path, or valid) and sends nothing', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'trigger');
    await page.getByLabel('Plugin', { exact: true }).selectOption(pluginId);
    const picker = page.getByLabel('Event kind', { exact: true });
    // Its own group of the picker, beside the platform events.
    await page
      .locator('optgroup[label^="External events"] option', { hasText: 'order_placed' })
      .waitFor({ state: 'attached' });
    expect(
      await page.locator('optgroup[label="Platform events"] option').allTextContents(),
    ).toContain('PLUGIN_INSTALLED');
    await picker.selectOption({ label: 'order_placed (Order placed)' });
    await expect
      .poll(() => page.getByText('the platform does not emit external events to plugins').count())
      .toBe(1);
    expect(await page.getByRole('button', { name: 'Send event' }).count()).toBe(0);

    // The editor starts from an example built from the payloadSchema.
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    await expect
      .poll(async () => JSON.parse(await payload.inputValue()))
      .toMatchObject({ orderId: expect.any(String), total: 0 });

    const received = hook.received.length;
    const logged = emu.deliveries.list().length;
    await payload.fill(JSON.stringify({ total: -5, note: 'no id' }, null, 2));
    await page.getByRole('button', { name: 'Check payload' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.textContent();
    expect(text).toContain('does not match the payloadSchema of order_placed');
    expect(text).toContain('payload.orderId');
    expect(text).toContain('is required');
    expect(text).toContain('payload.total');
    expect(text).toContain('must be >= 0');
    await screenshot(page, 'trigger-external-invalid');

    await payload.fill(JSON.stringify({ orderId: 'ord_1', total: 12.5 }, null, 2));
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('button', { name: 'Check payload' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Valid: the payload matches the payloadSchema of order_placed' })
      .waitFor();
    await screenshot(page, 'trigger-external-valid');

    // Nothing was sent or logged, and the page stayed on Trigger.
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.received.length).toBe(received);
    expect(emu.deliveries.list().length).toBe(logged);
    expect(page.url()).toContain('#/trigger');
    expectNoConsoleErrors(consoleErrors);
  });
});
