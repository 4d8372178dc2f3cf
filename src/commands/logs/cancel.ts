import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { cancelRetries } from '../../dev/delivery-actions.js';

/** Ends a pending delivery's retries and shows the delivery as it now is (failed). */
const cancel: CommandHandler<TargetFlags> = async (input) => {
  const [deliveryId] = input.args;
  const delivery = await withClient(input, { token: false }, (client) => cancelRetries(client, deliveryId));
  if (input.global.json) {
    input.io.stdout.write(JSON.stringify(delivery, null, 2) + '\n');
    return;
  }
  const attempts = delivery.attempts.length;
  input.io.stdout.write(
    `Cancelled the retries of delivery ${delivery.id}: it is ${delivery.status} after ${attempts} attempt${attempts === 1 ? '' : 's'} and is never sent again ` +
      `(\`plugsmith logs redeliver ${delivery.id}\` sends its event as a new delivery).\n`,
  );
};

export default cancel;
