import { expect } from 'vitest';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import type { Emulator } from '../../emulator/index.js';
import { createWebhookHandler, type WebhookHandlers } from '../../src/shared/webhooks/index.js';
import { emulator, own, server } from './index.js';

/** An in-memory emulator and a client of it with every credential (the admin token too), both closed after the test file. */
export async function emulatorAndClient(): Promise<{ emu: Emulator; client: PlatformClient }> {
  const emu = await emulator();
  const client = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token!,
    apiKey: emu.apiKey!,
    adminToken: emu.adminToken,
  });
  own(() => client.close());
  return { emu, client };
}

/** What a test plugin is: its record's fields, less the org and the webhook URL, which this helper fills. */
export interface TestPlugin {
  name: string;
  description: string;
  type: 'EVENT_HANDLER' | 'DATA_PROVIDER' | 'APP';
  events: string[];
  scopes: string[];
}

/**
 * Serves `on` as a plugin's webhook on a real port (signed deliveries verified with the plugin's secret), creates the
 * plugin in the emulator's default org with that URL, and verifies its webhook; returns the plugin's id.
 */
export async function servePlugin(
  emu: Emulator,
  client: PlatformClient,
  plugin: TestPlugin,
  on: WebhookHandlers,
): Promise<string> {
  let secret = '';
  const webhook = await server((req, res) => createWebhookHandler({ secret, on })(req, res));
  const created = await client.plugins.create({
    orgId: emu.orgId!,
    ...plugin,
    webhookUrl: `${webhook.url}/webhook`,
  } as never);
  secret = String(created.webhookSecret);
  expect((await client.plugins.verifyWebhook(created.id)).verified).toBe(true);
  return created.id;
}
