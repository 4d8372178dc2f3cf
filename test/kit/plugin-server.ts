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

/**
 * What the echo plugin writes back to a message the platform sent it: the reply's text, or null to write none. Throwing
 * answers the delivery 500 (the webhook handler's answer to a handler that throws), so the platform retries it.
 */
export type EchoAnswer = (
  text: string,
  event: { id: string; attempt: number },
) => string | null | Promise<string | null>;

/**
 * An EVENT_HANDLER plugin served on a real port (servePlugin) that writes a reply to every message it is sent, with the
 * access token its installation got: `You said: <text>` unless `answer` says otherwise. `received` lists every message
 * text it was sent (a retry's too), in order; `answer` is told which attempt at the event this is (1 for the first).
 * `handled()` counts the attempts it has finished with (its reply written, or its refusal answered).
 */
export async function serveEchoPlugin(
  emu: Emulator,
  client: PlatformClient,
  options: { name?: string; answer?: EchoAnswer } = {},
): Promise<{ pluginId: string; received: string[]; handled: () => number }> {
  const tokens = new Map<string, string>();
  const received: string[] = [];
  let handled = 0;
  const attempts = new Map<string, number>();
  const answer: EchoAnswer = options.answer ?? ((text) => `You said: ${text}`);
  const pluginId = await servePlugin(
    emu,
    client,
    {
      name: options.name ?? 'echo',
      description: 'answers with what it was told',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
    {
      PLUGIN_INSTALLED: (event) => {
        tokens.set(event.data.instance.id, event.data.accessToken);
      },
      AGENT_MESSAGE_RECEIVED: async (event) => {
        const { agentId, conversationId, message } = event.data;
        received.push(message.content);
        const attempt = (attempts.get(event.id) ?? 0) + 1;
        attempts.set(event.id, attempt);
        try {
          const content = await answer(message.content, { id: event.id, attempt });
          if (content === null) return;
          await fetch(`${emu.url}/api/agents/${agentId}/conversations/${conversationId}/messages`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${tokens.get(event.pluginInstanceId)}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ content, isStreaming: false }),
          });
        } finally {
          handled++;
        }
      },
    },
  );
  return { pluginId, received, handled: () => handled };
}
