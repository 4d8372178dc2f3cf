import type { CommandHandler, TargetFlags } from '../types.js';
import { timeoutMsOf, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { deliverySummary } from '../../dev/delivery-view.js';
import { retryNow } from '../../dev/delivery-actions.js';
import { note } from '../../ui/output.js';

/** Runs a pending delivery's next attempt now and reports it (or, with --no-wait, that it started). */
const retry: CommandHandler<{ wait: boolean } & TargetFlags> = async (input) => {
  const [deliveryId] = input.args;
  const { wait } = input.options;
  const delivery = await withClient(input, { token: false }, async (client) =>
    retryNow(client, deliveryId, { wait, timeoutMs: timeoutMsOf(input) }),
  );
  if (input.global.json) input.io.stdout.write(JSON.stringify(delivery, null, 2) + '\n');
  else if (!wait) input.io.stdout.write(`delivery ${delivery.id}: attempt ${delivery.attempts.length + 1} started\n`);
  else input.io.stdout.write(deliverySummary(delivery) + '\n');
  if (!wait) {
    note(input.io, input.global, `\`plugsmith logs --follow --plugin ${delivery.pluginId}\` shows how it ends`);
    return;
  }
  if (delivery.status !== 'delivered') {
    const next = delivery.status === 'pending' && delivery.nextAttemptAt ? `; the next retry is due at ${delivery.nextAttemptAt}` : '';
    throw new UserError(`the webhook did not accept the attempt${next}`, EXIT.UNEXPECTED);
  }
};

export default retry;
