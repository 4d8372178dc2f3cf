import { z } from 'zod';
import { pluginIdOf } from '../connection.js';
import { result } from '../shape.js';
import { defineTool, WRITES } from '../tool.js';

export const rotateWebhookSecret = defineTool({
  name: 'rotate_webhook_secret',
  title: 'Rotate the webhook secret',
  description:
    "Gives the plugin a new webhook secret; the previous one keeps signing beside it for graceSeconds (default 24 h), so deliveries carry two signatures meanwhile and the running plugin, still verifying with the old one, refuses none. Once the old one stops signing (at once with graceSeconds: 0), the next delivery is refused (401); `plugsmith dev` then reads the new secret, restarts the plugin with it, and the emulator retries that delivery on its schedule. A plugin not run by dev must be restarted with the new secret by hand. The secret itself is never returned (it is in the emulator, for the plugin's own environment).",
  inputSchema: {
    pluginId: z.string().optional().describe("default: this project's plugin"),
    graceSeconds: z.number().int().min(0).max(604_800).optional(),
  },
  outputSchema: { pluginId: z.string(), previousSecretExpiresAt: z.string().nullable() },
  annotations: WRITES,
  async run(args, connection) {
    const pluginId = await pluginIdOf(connection, args.pluginId);
    const rotation = await connection.client.plugins.rotateWebhookSecret(
      pluginId,
      args.graceSeconds === undefined ? undefined : { graceSeconds: args.graceSeconds },
    );
    const expires = rotation.previousSecretExpiresAt ?? null;
    const warning = expires
      ? ''
      : ' Warning: the running plugin still verifies with the old secret, so the next delivery is refused (401); `plugsmith dev` then restarts the plugin with the new secret and the emulator retries that delivery on its schedule. A plugin not run by dev must be restarted with the new secret by hand.';
    const summary = `Rotated the webhook secret of ${pluginId}; the previous one signs ${expires ? `until ${expires}` : 'no longer'}.${warning}`;
    return result(summary, { pluginId, previousSecretExpiresAt: expires }, [
      ...connection.credentials,
      rotation.webhookSecret,
    ]);
  },
});
