import { errorForLog } from '../errors.js';
import { StoreClosed } from '../store/store.js';
import type { Db, DeliveryRecord, DeliveryStatus, EventKind } from '../model.js';

/** A delivery as the log shows it: everything but the signing secret. */
export type DeliveryView = Omit<DeliveryRecord, 'secret'>;

/** What `waitFor` looks for; `status` defaults to 'delivered', 'any' matches every status. */
export interface DeliveryMatch {
  type?: EventKind;
  pluginId?: string;
  pluginInstanceId?: string;
  eventId?: string;
  status?: DeliveryStatus | 'any';
}

/** Strips the secret from a delivery record. */
export function presentDelivery(record: DeliveryRecord): DeliveryView {
  const { secret: _secret, ...view } = record;
  return view;
}

/** The delivery log (the store's `deliveries`): every delivery with its attempts, within `logLimit` by dropping the oldest finished. */
export class DeliveryLog {
  private readonly changeListeners = new Set<(record: DeliveryRecord) => void>();
  private finishedSincePrune = 0;

  constructor(
    private readonly db: Db,
    private readonly logLimit: number,
    /** Whether a delivery has an attempt under way (it is never pruned then). */
    private readonly busy: (id: string) => boolean,
    /** Where a failing listener is told of (the emulator's log). */
    private readonly report: (line: string) => void,
  ) {}

  /**
   * Writes a record durably, tells the waiters, and prunes once per tenth of the limit of deliveries finished:
   * a backlog of pending deliveries past the limit would otherwise make every save scan it.
   */
  async save(record: DeliveryRecord): Promise<void> {
    const done = this.db.deliveries.put(record);
    for (const listener of this.changeListeners)
      safely(() => listener(record), this.report, `delivery ${record.id}'s changes`);
    const slack = Math.max(1, Math.floor(this.logLimit / 10));
    if (
      record.status !== 'pending' &&
      ++this.finishedSincePrune >= slack &&
      this.db.deliveries.size > this.logLimit
    )
      this.prune();
    await done;
  }

  /** Deliveries in the log that match, oldest first. */
  list(match: DeliveryMatch = { status: 'any' }): DeliveryView[] {
    return [...this.db.deliveries.values()]
      .filter((record) => matches(record, match))
      .map(presentDelivery);
  }

  /** Resolves with the first delivery (existing or future) that matches, or rejects after `timeoutMs`. */
  waitFor(match: DeliveryMatch, timeoutMs = 10_000): Promise<DeliveryView> {
    for (const record of this.db.deliveries.values())
      if (matches(record, match)) return Promise.resolve(presentDelivery(record));
    return new Promise((resolve, reject) => {
      const listener = (record: DeliveryRecord) => {
        if (!matches(record, match)) return;
        cleanup();
        resolve(presentDelivery(record));
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = this.list({ ...match, status: 'any' }).map(
          (d) => `${d.id} ${d.type} ${d.status}`,
        );
        reject(
          new Error(
            `no ${match.status ?? 'delivered'} delivery matching ${JSON.stringify(match)} within ${timeoutMs} ms; similar: ${seen.join(', ') || 'none'}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.changeListeners.delete(listener);
      };
      this.changeListeners.add(listener);
    });
  }

  /** Drops the oldest finished deliveries (not pending, no attempt under way) until the log is back at its limit. */
  private prune(): void {
    this.finishedSincePrune = 0;
    let excess = this.db.deliveries.size - this.logLimit;
    const doomed: string[] = [];
    for (const record of this.db.deliveries.values()) {
      if (excess <= 0) break;
      if (record.status === 'pending' || this.busy(record.id)) continue;
      doomed.push(record.id);
      excess--;
    }
    void this.drop(doomed);
  }

  /**
   * Deletes deliveries, durably like any change. A refused delete leaves its delivery in the log (the log is over its
   * limit until the next prune): the store closing under it is expected, anything else (a full disk) is told.
   */
  private async drop(ids: string[]): Promise<void> {
    const results = await Promise.allSettled(ids.map((id) => this.db.deliveries.delete(id)));
    const refusals = results.flatMap((result) =>
      result.status === 'rejected' && !(result.reason instanceof StoreClosed)
        ? [result.reason]
        : [],
    );
    if (refusals.length === 0) return;
    this.report(
      `plugsmith emulator: ${refusals.length} of ${ids.length} deliveries past the log's limit (${this.logLimit}) could not be dropped, and stay in the log until the next try: ${errorForLog(refusals[0])}`,
    );
  }
}

const MATCHED_FIELDS = ['type', 'pluginId', 'pluginInstanceId', 'eventId'] as const;

function matches(record: DeliveryRecord, match: DeliveryMatch): boolean {
  const status = match.status ?? 'delivered';
  if (status !== 'any' && record.status !== status) return false;
  return MATCHED_FIELDS.every(
    (field) => match[field] === undefined || record[field] === match[field],
  );
}

/**
 * Runs a listener of the delivery log or of attempts, so that its failure cannot fail the delivery, and tells the
 * emulator's log of any: none is expected (the delivery stream's listener checks that its client is still there before
 * writing, and `waitFor`'s only compares), so a throw is a bug to see, not one to hide.
 */
export function safely(listener: () => void, report: (line: string) => void, about: string): void {
  try {
    listener();
  } catch (error) {
    report(
      `plugsmith emulator: a listener of ${about} failed inside the emulator (please report this): ${errorForLog(error)}`,
    );
  }
}
