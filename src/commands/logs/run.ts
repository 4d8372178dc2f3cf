import type { RunCommand, CommandInput, TargetFlags } from '../types.js';
import { printRows, timeoutMsOf, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { MAX_BULK_REDELIVERIES } from '#contract/requests';
import {
  DELIVERY_COLUMNS,
  attemptLine,
  deliveryDetail,
  deliverySummary,
} from '../../dev/delivery-view.js';
import {
  cancelRetries,
  countMatching,
  redeliverMatching,
  retryNow,
} from '../../dev/delivery-actions.js';
import { confirm } from '../../ui/dialogs.js';
import { note, printResult } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { listenForStop } from '../stop-signal.js';
import {
  deliveryMatchOf,
  describeFilters,
  givenFilters,
  type DeliveryFilterFlags,
} from './filters.js';

interface LogsOptions extends DeliveryFilterFlags {
  follow?: boolean;
  limit: number;
}

/** The filters the live stream can apply; the others judge a delivery's whole history, or its creation time. */
const FOLLOWABLE = ['--plugin', '--type', '--status'];

/** Prints the delivery log, or follows it live. */
export const logs: RunCommand<LogsOptions & TargetFlags> = async (input) => {
  const o = input.options;
  const { io, global } = input;
  const [deliveryId] = input.args;
  if (deliveryId !== undefined) {
    if (o.follow || givenFilters(o).length > 0)
      throw new UserError(
        `\`plugsmith logs ${deliveryId}\` shows that one delivery: drop ${[...(o.follow ? ['--follow'] : []), ...givenFilters(o)].join(', ')} (or drop the id to list or follow the log)`,
        EXIT.USAGE,
      );
    return withClient(input, { token: false }, async (client) => {
      const delivery = await client.emulator.deliveries.get(deliveryId);
      if (global.json) io.stdout.write(`${JSON.stringify(delivery, null, 2)}\n`);
      else io.stdout.write(`${deliveryDetail(delivery, styleFor(io, global)).join('\n')}\n`);
    });
  }
  const unfollowable = givenFilters(o).filter((flag) => !FOLLOWABLE.includes(flag));
  if (o.follow && unfollowable.length > 0) {
    throw new UserError(
      `--follow shows attempts as they happen and filters them by --plugin, --type and --status only; drop ${unfollowable.join(', ')} (or drop --follow to list the log)`,
      EXIT.USAGE,
    );
  }
  if (!o.follow) {
    return withClient(input, { token: false }, async (client) => {
      const page = await client.emulator.deliveries.list({
        ...deliveryMatchOf(o),
        sortBy: 'createdAt',
        sortOrder: 'desc',
        limit: o.limit,
      });
      printRows(input, page.data.reverse(), DELIVERY_COLUMNS, 'deliveries');
    });
  }
  // The statuses --status matches, as the log is filtered (failed: also exhausted, every retry failed).
  const statuses = [deliveryMatchOf(o).filters?.status ?? []].flat();
  const style = styleFor(io, global);
  const { followDeliveries } = await import('../../dev/delivery-stream.js');
  const stopped = await withClient(input, { token: false }, async (client) => {
    const stop = listenForStop();
    try {
      await followDeliveries(
        client,
        { pluginId: o.plugin, type: o.type },
        (notice) => {
          if (statuses.length > 0 && !statuses.includes(notice.delivery.status)) return;
          io.stdout.write(
            (global.json ? JSON.stringify(notice) : attemptLine(notice, style)) + '\n',
          );
        },
        {
          signal: stop.signal,
          onOpen: () =>
            note(io, global, `following deliveries of ${client.baseUrl} (Ctrl+C to stop)`),
        },
      );
    } finally {
      stop.dispose();
    }
    return stop.signal.aborted;
  });
  if (!stopped) note(io, global, 'the delivery stream ended (the emulator stopped)');
};

/** Ends a pending delivery's retries and shows the delivery as it now is (failed). */
export const cancel: RunCommand<TargetFlags> = async (input) => {
  const [deliveryId] = input.args;
  const delivery = await withClient(input, { token: false }, (client) =>
    cancelRetries(client, deliveryId),
  );
  const attempts = delivery.attempts.length;
  printResult(
    input.io,
    input.global,
    delivery,
    () =>
      `Cancelled the retries of delivery ${delivery.id}: it is ${delivery.status} after ${attempts} attempt${attempts === 1 ? '' : 's'} and is never sent again ` +
      `(\`plugsmith logs redeliver ${delivery.id}\` sends its event as a new delivery).\n`,
  );
};

/** Runs a pending delivery's next attempt now and reports it (or, with --no-wait, that it started). */
export const retry: RunCommand<{ wait: boolean } & TargetFlags> = async (input) => {
  const [deliveryId] = input.args;
  const { wait } = input.options;
  const delivery = await withClient(input, { token: false }, async (client) =>
    retryNow(client, deliveryId, { wait, timeoutMs: timeoutMsOf(input) }),
  );
  printResult(
    input.io,
    input.global,
    delivery,
    () =>
      (wait
        ? deliverySummary(delivery)
        : `delivery ${delivery.id}: attempt ${delivery.attempts.length + 1} started`) + '\n',
  );
  if (!wait) {
    note(
      input.io,
      input.global,
      `\`plugsmith logs --follow --plugin ${delivery.pluginId}\` shows how it ends`,
    );
    return;
  }
  if (delivery.status !== 'delivered') {
    const next =
      delivery.status === 'pending' && delivery.nextAttemptAt
        ? `; the next retry is due at ${delivery.nextAttemptAt}`
        : '';
    throw new UserError(`the webhook did not accept the attempt${next}`, EXIT.UNEXPECTED);
  }
};

type RedeliverOptions = DeliveryFilterFlags & { yes?: boolean } & TargetFlags;

function deliveries(n: number): string {
  return `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;
}

/** Sends a logged delivery's event again and reports the new delivery's first attempt. */
async function redeliverOne(
  input: CommandInput<RedeliverOptions>,
  deliveryId: string,
): Promise<void> {
  const delivery = await withClient(input, { token: false }, (client) =>
    client.emulator.deliveries.redeliver(deliveryId),
  );
  // --quiet: the new delivery's id alone, as `trigger -q` prints its delivery's.
  if (input.global.quiet && !input.global.json) input.io.stdout.write(`${delivery.id}\n`);
  else
    printResult(
      input.io,
      input.global,
      delivery,
      () =>
        `${deliverySummary(delivery)}${delivery.redeliveryOf ? ` (redelivery of ${delivery.redeliveryOf})` : ''}\n`,
    );
  if (delivery.status !== 'delivered')
    throw new UserError(`the webhook did not accept the redelivered event`, EXIT.UNEXPECTED);
}

/** Resends every delivery the filters match, each as a new one, after a confirmation naming the count (`--yes` without a terminal). */
async function redeliverMatches(input: CommandInput<RedeliverOptions>): Promise<void> {
  const { io, global, options } = input;
  const filters = describeFilters(options);
  const match = deliveryMatchOf(options);
  const result = await withClient(input, { token: false }, async (client) => {
    const { matched, challenges } = await countMatching(client, match);
    const resendable = matched - challenges;
    if (resendable === 0) return { count: 0, skipped: challenges, deliveries: [] };
    if (resendable > MAX_BULK_REDELIVERIES) {
      throw new UserError(
        `${resendable} deliveries match ${filters}: at most ${MAX_BULK_REDELIVERIES} are resent at once; narrow the filters (--plugin, --type, --since, --http-status…)`,
        EXIT.VALIDATION,
      );
    }
    if (!options.yes) {
      const left =
        challenges > 0
          ? ` (${challenges} challenge${challenges === 1 ? '' : 's'} left out: never resent)`
          : '';
      const yes = await confirm(io, {
        flag: '--yes',
        message: `Send the events of ${deliveries(resendable)} matching ${filters} again, each as a new delivery${left}?`,
        default: false,
      });
      if (!yes)
        throw new UserError(
          `nothing resent: ${deliveries(resendable)} match ${filters}`,
          EXIT.USAGE,
        );
    }
    return redeliverMatching(client, match);
  });
  const left =
    result.skipped > 0
      ? `; ${result.skipped} challenge${result.skipped === 1 ? '' : 's'} left out`
      : '';
  printResult(io, global, result, () =>
    result.count === 0
      ? `No delivery to resend: none matches ${filters}${result.skipped > 0 ? ` but challenges, which are never resent` : ''} (\`plugsmith logs ${filters}\` shows what they match).\n`
      : `Resent ${deliveries(result.count)} matching ${filters}, as new deliveries${left}:\n${result.deliveries.join('\n')}\n`,
  );
  if (result.count > 0)
    note(io, global, 'their attempts run now: `plugsmith logs --follow` shows them as they end');
}

/** `plugsmith logs redeliver [deliveryId]`: one delivery by id, or every delivery the filters match. */
export const redeliver: RunCommand<RedeliverOptions> = async (input) => {
  const [deliveryId] = input.args;
  const filtered = givenFilters(input.options).length > 0;
  if (deliveryId !== undefined && filtered) {
    throw new UserError(
      `give a delivery id or filters, not both: \`plugsmith logs redeliver ${deliveryId}\` resends that one, \`plugsmith logs redeliver ${describeFilters(input.options)}\` every delivery the filters match`,
      EXIT.USAGE,
    );
  }
  if (deliveryId !== undefined) return redeliverOne(input, deliveryId);
  if (!filtered) {
    throw new UserError(
      'name the delivery to resend (`plugsmith logs redeliver dlv_123`; `plugsmith logs` lists them), or give filters to resend every delivery they match (`plugsmith logs redeliver --status failed --since 1h`)',
      EXIT.USAGE,
    );
  }
  return redeliverMatches(input);
};
