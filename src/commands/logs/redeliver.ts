import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { deliverySummary } from '../../dev/delivery-view.js';

/** Sends a logged delivery's event again and reports the new delivery's first attempt. */
const redeliver: CommandHandler<TargetFlags> = async (input) => {
  const deliveryId = input.args[0];
  const delivery = (await withClient(input, { token: false }, (client) => client.emulator.deliveries.redeliver(deliveryId)));
  if (input.global.json) input.io.stdout.write(JSON.stringify(delivery, null, 2) + '\n');
  else input.io.stdout.write(`${deliverySummary(delivery)}${delivery.redeliveryOf ? ` (redelivery of ${delivery.redeliveryOf})` : ''}\n`);
  if (delivery.status !== 'delivered') throw new UserError(`the webhook did not accept the redelivered event`, EXIT.UNEXPECTED);
};

export default redeliver;
