import type { FaultMark } from '#contract';
import type { DeliveryAttempt, DeliveryRecord } from '../model.js';
import { nowIso } from '../store/ids.js';
import { answered2xx, loggedAttempt, notSent, type AttemptOutcome } from './attempt.js';
import type { AttemptFaults, FaultInjector } from './fault-injector.js';

/** What a faulted attempt needs of the delivery engine to finish: send once more, log, announce. */
export interface FaultedAttemptIo {
  send(record: DeliveryRecord): Promise<AttemptOutcome>;
  save(record: DeliveryRecord): Promise<void>;
  notify(record: DeliveryRecord, attempt: DeliveryAttempt): void;
  /** Whether the delivery is still in the store (a reset drops it). */
  exists(deliveryId: string): boolean;
  /** Whether the emulator is closing (no duplicate is sent then). */
  closing(): boolean;
}

/**
 * The faults drawn for one attempt of a delivery, played around it: the waits before it is sent (reorder,
 * delay), a drop instead of the send, a 2xx answer counted as lost, a duplicate after a delivered answer.
 * The delivery engine makes one only when a fault profile is on, so a run without faults never meets this.
 */
export class FaultedAttempt {
  /** The marks of the faults this attempt met, in the order they happened. */
  private readonly marks: FaultMark[];

  private constructor(
    private readonly injector: FaultInjector,
    private readonly faults: AttemptFaults,
    private readonly number: number,
    marks: FaultMark[],
  ) {
    this.marks = marks;
  }

  /** Draws the faults of a delivery's attempt `number` and runs their waits (reorder hold, then delay). */
  static async prepare(
    injector: FaultInjector,
    delivery: Pick<DeliveryRecord, 'id' | 'pluginId'>,
    number: number,
    canRetry: boolean,
  ): Promise<FaultedAttempt> {
    const faults = injector.plan(delivery.id, number, canRetry);
    const marks = await injector.before(delivery.id, delivery.pluginId, number, faults);
    return new FaultedAttempt(injector, faults, number, marks);
  }

  /** The outcome of a dropped attempt (nothing sent, so the retry path runs), or null when it is sent. */
  dropped(): AttemptOutcome | null {
    return this.faults.drop
      ? notSent('fault injection (drop): the attempt was not sent; the retry path runs')
      : null;
  }

  /** The attempt's problem once the drawn faults apply (drop, timeout after a 2xx answer). */
  problem(outcome: AttemptOutcome, problem: string | null): string | null {
    return faultProblem(this.faults, outcome, problem, this.number, this.marks);
  }

  /**
   * Logs the attempt with its marks. A delivered event drawn for duplication is sent once more first (same
   * webhook-id, an extra attempt), so 'delivered' means the plugin has had both; an answer lets held deliveries
   * go (reorder).
   */
  async finish(
    before: DeliveryRecord,
    settled: { record: DeliveryRecord; attempt: DeliveryAttempt },
    io: FaultedAttemptIo,
  ): Promise<DeliveryRecord> {
    let record = settled.record;
    const { attempt } = settled;
    if (this.marks.length > 0) record.faults = [...(before.faults ?? []), ...this.marks];
    let duplicate: DeliveryAttempt | null = null;
    if (record.status === 'delivered' && this.faults.duplicate && !io.closing() && record.url) {
      const outcome = await io.send(record);
      if (!outcome.interrupted) ({ record, attempt: duplicate } = withDuplicate(record, outcome));
    }
    if (!io.exists(record.id)) return record; // the store was reset meanwhile
    await io.save(record);
    io.notify(record, attempt);
    if (duplicate) io.notify(record, duplicate);
    if (attempt.responseStatus !== null)
      this.injector.answered(record.id, record.pluginId, record.eventId);
    if (record.status !== 'pending') this.injector.finished(record.id);
    return record;
  }
}

/** The attempt's problem once the drawn faults apply, and their marks (drop, timeout after a 2xx answer). */
export function faultProblem(
  faults: AttemptFaults,
  outcome: AttemptOutcome,
  problem: string | null,
  attempt: number,
  marks: FaultMark[],
): string | null {
  if (faults.drop) {
    marks.push({ kind: 'drop', attempt });
    return problem;
  }
  if (faults.timeoutAfterAnswer && answered2xx(outcome.status, problem)) {
    marks.push({ kind: 'timeout-after-answer', attempt, answeredStatus: outcome.status! });
    return `fault injection (timeout-after-answer): the webhook answered HTTP ${outcome.status}, but the answer counts as lost; the event is sent again`;
  }
  return problem;
}

/** The record with a duplicate request logged: an extra attempt, marked, that leaves the delivery as it was. */
export function withDuplicate(
  record: DeliveryRecord,
  outcome: AttemptOutcome,
): { record: DeliveryRecord; attempt: DeliveryAttempt } {
  const of = record.attempts.length;
  const attempt = loggedAttempt(outcome, {
    number: of + 1,
    url: record.url ?? '',
    error: outcome.error,
    nextAttemptAt: null,
  });
  const marks: FaultMark[] = [...(record.faults ?? []), { kind: 'duplicate', attempt: of + 1, of }];
  return {
    record: {
      ...record,
      attempts: [...record.attempts, attempt],
      faults: marks,
      updatedAt: nowIso(),
    },
    attempt,
  };
}
