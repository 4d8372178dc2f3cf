import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { printResult } from '../../ui/output.js';

/** Rotates the webhook secret; prints the new secret (for `$(…)`), or the whole rotation with --json. */
const rotate: CommandHandler<{ grace?: number } & TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  // No --grace: the platform's default (24 h).
  const graceSeconds = input.options.grace;
  const rotation = await withClient(input, { token: true }, (client) => client.plugins.rotateWebhookSecret(pluginId, graceSeconds === undefined ? {} : { graceSeconds }));
  if (!input.global.json && !input.global.quiet) {
    input.io.stderr.write(
      rotation.previousSecretExpiresAt
        ? `plugin ${pluginId}: new webhook secret below; deliveries carry signatures under both secrets until ${rotation.previousSecretExpiresAt}. Give your webhook the new secret before then (PLUGSMITH_WEBHOOK_SECRET="new,old" accepts both meanwhile).\n`
        : `plugin ${pluginId}: new webhook secret below; the previous one no longer signs deliveries.\n`,
    );
  }
  printResult(input.io, input.global, rotation, () => `${rotation.webhookSecret}\n`);
};

export default rotate;
