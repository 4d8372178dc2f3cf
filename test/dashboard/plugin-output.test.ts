import { adminCall, emulator } from '../kit/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// The delivery detail shows the plugin's own output beside the attempt it belongs to, above the fold at
// 1440x900: the lines the plugin wrote while it handled the event (posted as the CLI posts what it captures).

let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000, schedule: [] } });
  hook = await WebhookServer.start(async (event) => {
    if (event.type === 'WEBHOOK_CHALLENGE')
      return { status: 200, body: { challenge: (event.data as { challenge: string }).challenge } };
    // What a failing handler writes, posted before it answers: the lines fall between the send and the answer.
    const at = new Date().toISOString();
    const posted = await adminCall(emu, 'POST', `/_emulator/plugins/${pluginId}/output`, {
      body: {
        lines: [
          { at, stream: 'stderr', text: `${event.type} ${event.id} failed: TypeError: boom` },
          { at, stream: 'stderr', text: '    at replyTo (/plugin/dist/reply.js:7:17)' },
          { at, stream: 'stdout', text: '<img src=x onerror=alert(1)> is text' },
        ],
      },
    });
    if (posted.status !== 200) throw new Error(JSON.stringify(posted.body));
    return { status: 500, body: { error: 'the handler failed' } };
  });
  const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    name: 'Output plugin',
  });
  pluginId = plugin.id;
  const agentId = emu.agentId!;
  const installed = await fetch(`${emu.url}/api/agents/${agentId}/plugins`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'On the agent', pluginId, events: [], scopes: [] }),
  });
  expect(installed.status).toBe(201);
});
afterAll(async () => {
  await hook?.close();
});

it("the plugin's output of the failed attempt is read beside its status, above the fold at 1440x900", async () => {
  await expect
    .poll(() => emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED')?.status)
    .toBe('exhausted');
  const delivery = emu.deliveries.list().find((d) => d.type === 'PLUGIN_INSTALLED')!;
  const { page, consoleErrors } = await openDashboard(emu, `deliveries/${delivery.id}`);
  await page.setViewportSize({ width: 1440, height: 900 });
  const detail = page.getByRole('complementary', { name: `Delivery ${delivery.id}` });
  const top = detail.getByRole('region', { name: 'Plugin output of attempt 1' }).first();
  await top.waitFor();
  expect(await top.getByRole('heading').textContent()).toBe('Plugin output · attempt 1 · HTTP 500');
  const error = top.getByText(`PLUGIN_INSTALLED ${delivery.eventId} failed: TypeError: boom`);
  const stack = top.getByText('at replyTo (/plugin/dist/reply.js:7:17)');
  for (const line of [error, stack]) {
    const box = await line.boundingBox();
    expect(box, 'the line is shown').not.toBeNull();
    expect(box!.y + box!.height, 'the line is above the fold').toBeLessThanOrEqual(900);
  }
  // Untrusted text stays text.
  expect(await top.getByText('<img src=x onerror=alert(1)> is text').count()).toBe(1);
  expect(await page.locator('img[src=x]').count()).toBe(0);
  // The attempt's own section has the same lines.
  const inAttempt = detail
    .getByRole('region', { name: 'Attempt 1' })
    .getByRole('region', { name: 'Plugin output of attempt 1' });
  expect(await inAttempt.getByText('TypeError: boom').count()).toBe(1);
  await screenshot(page, 'delivery-plugin-output');
  expectNoConsoleErrors(consoleErrors);
});
