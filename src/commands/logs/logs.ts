import type { CommandHandler, TargetFlags } from '../types.js';
import { clientFor, printRows } from '../context.js';
import { note } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { DELIVERY_COLUMNS, attemptLine } from '../../dev/delivery-view.js';
import type { DeliveryAttemptNotice } from '../../contract/index.js';
import { listenForStop } from '../stop-signal.js';
import { UserError, EXIT } from '../../errors.js';
import { deliveryMatchOf, givenFilters, type DeliveryFilterFlags } from './filters.js';

interface LogsOptions extends DeliveryFilterFlags {
  follow?: boolean;
  limit: number;
}

/** `failed` means "did not get through": a challenge that failed, or a delivery whose retries are exhausted. */
function statusesOf(status: string | undefined): string[] | undefined {
  if (!status) return undefined;
  return status === 'failed' ? ['failed', 'exhausted'] : [status];
}

/** The filters the live stream can apply; the others judge a delivery's whole history, or its creation time. */
const FOLLOWABLE = ['--plugin', '--type', '--status'];

/** Prints the delivery log, or follows it live. */
const logs: CommandHandler<LogsOptions & TargetFlags> = async (input) => {
  const o = input.options;
  const { io, global } = input;
  const unfollowable = givenFilters(o).filter((flag) => !FOLLOWABLE.includes(flag));
  if (o.follow && unfollowable.length > 0) {
    throw new UserError(`--follow shows attempts as they happen and filters them by --plugin, --type and --status only; drop ${unfollowable.join(', ')} (or drop --follow to list the log)`, EXIT.USAGE);
  }
  const { client } = await clientFor(input, { token: false });
  const statuses = statusesOf(o.status);
  const style = styleFor(io, global);
  if (!o.follow) {
    try {
      const page = await client.emulator.deliveries.list({ ...deliveryMatchOf(o), sortBy: 'createdAt', sortOrder: 'desc', limit: o.limit });
      printRows(input, page.data.reverse(), DELIVERY_COLUMNS, 'deliveries');
    } finally {
      await client.close();
    }
    return;
  }

  const { followDeliveries } = await import('../../dev/delivery-stream.js');
  const stop = listenForStop();
  try {
    await followDeliveries(
      client,
      { pluginId: o.plugin, type: o.type },
      (notice: DeliveryAttemptNotice) => {
        if (statuses && !statuses.includes(notice.delivery.status)) return;
        io.stdout.write((global.json ? JSON.stringify(notice) : attemptLine(notice, style)) + '\n');
      },
      { signal: stop.signal, onOpen: () => note(io, global, `following deliveries of ${client.baseUrl} (Ctrl+C to stop)`) },
    );
  } finally {
    stop.dispose();
    await client.close();
  }
  if (!stop.signal.aborted) note(io, global, 'the delivery stream ended (the emulator stopped)');
};

export default logs;
