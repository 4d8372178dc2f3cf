import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BulkRedeliveryResult,
  Delivery,
  DeliveryMatch,
  PlatformClient,
} from '../client/index.js';
import { ApiError } from '../client/errors.js';
import { UserError, EXIT } from '../errors.js';
import { followDeliveries } from './delivery-stream.js';

/** A delivery of the log, or a user error that says where the ids are. */
function loggedDelivery(client: PlatformClient, deliveryId: string): Promise<Delivery> {
  return client.emulator.deliveries.get(deliveryId).catch((error: unknown) => {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    throw new UserError(
      `no delivery ${deliveryId} in the emulator's log: \`plugsmith logs\` lists the deliveries (the id is the last column)`,
      EXIT.NOT_FOUND,
    );
  });
}

/** Only a pending delivery is retried or cancelled: anything else is a conflict that names what to do instead. */
function mustBePending(delivery: Delivery, what: string): void {
  if (delivery.status === 'pending') return;
  const instead =
    delivery.type === 'WEBHOOK_CHALLENGE'
      ? `verify the webhook again with \`plugsmith plugins verify ${delivery.pluginId}\``
      : `send its event again with \`plugsmith logs redeliver ${delivery.id}\``;
  throw new UserError(
    `delivery ${delivery.id} is ${delivery.status}: only a pending delivery ${what}; ${instead}`,
    EXIT.CONFLICT,
  );
}

/** The emulator's 409 (the delivery changed since it was read, or an attempt is running) as a user error. */
function conflictsNamed<T>(request: Promise<T>): Promise<T> {
  return request.catch((error: unknown) => {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    throw new UserError(
      `${error.message} (\`plugsmith logs --follow\` shows the attempts as they end)`,
      EXIT.CONFLICT,
    );
  });
}

/**
 * Makes a pending delivery's next attempt now. With `wait`, the stream is opened first (so the attempt cannot pass
 * unseen) and the delivery returned as the attempt left it, within `timeoutMs`; otherwise as the attempt started.
 */
export async function retryNow(
  client: PlatformClient,
  deliveryId: string,
  options: { wait: boolean; timeoutMs: number },
): Promise<Delivery> {
  const before = await loggedDelivery(client, deliveryId);
  mustBePending(before, 'can be retried now');
  if (!options.wait) return conflictsNamed(client.emulator.deliveries.retry(deliveryId));

  const controller = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  let attempted!: (delivery: Delivery) => void;
  const outcome = new Promise<Delivery>((resolve) => (attempted = resolve));
  const stream = followDeliveries(
    client,
    { pluginId: before.pluginId },
    (notice) => {
      if (notice.delivery.id === deliveryId && notice.attempt.number > before.attempts.length)
        attempted(notice.delivery);
    },
    { signal: controller.signal, onOpen: opened },
  );
  const ended = stream.then(() => {
    throw new UserError(
      `the emulator's delivery stream ended before the attempt of ${deliveryId} was reported (did the emulator stop?)`,
      EXIT.NETWORK,
    );
  });
  const late = sleep(options.timeoutMs, undefined, { signal: controller.signal }).then(() => {
    throw new UserError(
      `no attempt of ${deliveryId} was reported within ${options.timeoutMs / 1000} s: \`plugsmith logs --follow\` shows it when it ends (--timeout waits longer)`,
      EXIT.NETWORK,
    );
  });
  try {
    await Promise.race([open, ended, late]);
    await conflictsNamed(client.emulator.deliveries.retry(deliveryId));
    return await Promise.race([outcome, ended, late]);
  } finally {
    controller.abort();
    await stream.catch(() => undefined);
  }
}

/** Ends a pending delivery's retries: it becomes failed (with `cancelledAt`) and is never sent again. */
export async function cancelRetries(client: PlatformClient, deliveryId: string): Promise<Delivery> {
  const delivery = await loggedDelivery(client, deliveryId);
  mustBePending(delivery, 'has retries to cancel');
  return conflictsNamed(client.emulator.deliveries.cancel(deliveryId));
}

/** How many deliveries a filter matches, and how many of them are challenges (never resent). */
export async function countMatching(
  client: PlatformClient,
  match: DeliveryMatch,
): Promise<{ matched: number; challenges: number }> {
  const count = async (m: DeliveryMatch) => {
    const page = await client.emulator.deliveries.list({ ...m, limit: 1 });
    return page.pagination?.type === 'index' ? page.pagination.total : page.data.length;
  };
  const matched = await count(match);
  const type = match.filters?.type;
  const types =
    type === undefined || type === null ? null : (Array.isArray(type) ? type : [type]).map(String);
  const challenges =
    types !== null && !types.includes('WEBHOOK_CHALLENGE')
      ? 0
      : await count({ ...match, filters: { ...match.filters, type: 'WEBHOOK_CHALLENGE' } });
  return { matched, challenges };
}

/** Resends every delivery the filter matches (challenges never), each as a new delivery; answers before their attempts. */
export function redeliverMatching(
  client: PlatformClient,
  match: DeliveryMatch,
): Promise<BulkRedeliveryResult> {
  return client.emulator.deliveries.redeliverMatching(match).catch((error: unknown) => {
    if (
      !(
        error instanceof ApiError &&
        error.status === 400 &&
        error.details.some((d) => d.code === 'too_big')
      )
    )
      throw error;
    throw new UserError(
      `${error.message}: narrow the filters (--plugin, --type, --since, --http-status…)`,
      EXIT.VALIDATION,
    );
  });
}
