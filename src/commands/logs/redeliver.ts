import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { deliverySummary } from '../../dev/delivery-view.js';
import { printResult } from '../../ui/output.js';

/** Sends a logged delivery's event again and reports the new delivery's first attempt. */
const redeliver: CommandHandler<TargetFlags> = async (input) => {
  const deliveryId = input.args[0];
  const delivery = await withClient(input, { token: false }, (client) => client.emulator.deliveries.redeliver(deliveryId));
  printResult(input.io, input.global, delivery, () => `${deliverySummary(delivery)}${delivery.redeliveryOf ? ` (redelivery of ${delivery.redeliveryOf})` : ''}\n`);
  if (delivery.status !== 'delivered') throw new UserError(`the webhook did not accept the redelivered event`, EXIT.UNEXPECTED);
};

export default redeliver;
