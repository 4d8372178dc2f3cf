import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { DeliveryAttemptNotice } from '#contract';
import type { Db, DeliveryAttempt, DeliveryRecord, DeliveryStatus } from '../model.js';
import { nowIso } from '../store/ids.js';
import {
  answered2xx,
  attemptDelivery,
  loggedAttempt,
  notSent,
  type AttemptOutcome,
  type RunningAttempt,
} from './attempt.js';
import { DeliveryLog, presentDelivery, safely } from './delivery-service.js';
import type { FaultInjector } from './fault-injector.js';
import { FaultedAttempt, type FaultedAttemptIo } from './faulted-attempt.js';
import { parseRetryAfter, retryDelay, type ResolvedDeliveryOptions } from './options.js';
import { DeliveryHolds } from './holds.js';
import { signingSecrets } from './signing-secrets.js';
import { DeliverySlots } from './slots.js';

/** Judges an attempt's outcome beyond its status (a challenge's echo): the problem, or null when it is fine. */
export type AttemptJudge = (outcome: AttemptOutcome) => string | null;

/** What the engine is built from. */
export interface DeliveryEngineSettings {
  db: Db;
  options: ResolvedDeliveryOptions;
  faults: FaultInjector;
  /** Why a URL must not be delivered to, or null; checked before each attempt. */
  refusal: (url: string) => string | null;
  /** Where a failure inside the emulator is reported (besides the delivery's log); default stderr. */
  log?: (line: string) => void;
}

/** How long `close()` lets attempts in flight finish before cutting them off. */
const CLOSE_GRACE_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why a pending challenge found at a start is not sent again. */
export const CHALLENGE_NOT_RESENT =
  'a WEBHOOK_CHALLENGE is never sent again (its answer decides verification): verify the webhook again with `plugsmith plugins verify <pluginId>` or POST /api/plugins/:pluginId/verify-webhook';

/**
 * The delivery engine: runs a pending delivery's attempts (a fair slot, the signed POST, the outcome logged),
 * schedules its retries, resumes the pending ones at a start, and cuts attempts off at close. It knows nothing of
 * why a delivery exists (the dispatcher emits them); faults, when a profile is on, are played by FaultedAttempt.
 */
export class DeliveryEngine {
  /** The delivery log: `list` and `waitFor` serve the admin API and tests. */
  readonly log: DeliveryLog;
  /** The plugins whose deliveries wait (plugsmith dev holds them while the plugin is not up). */
  readonly holds: DeliveryHolds;
  private readonly db: Db;
  private readonly options: ResolvedDeliveryOptions;
  private readonly faults: FaultInjector;
  private readonly refusal: (url: string) => string | null;
  private readonly report: (line: string) => void;
  private readonly http: Dispatcher;
  private readonly slots: DeliverySlots;
  /** Attempts waiting for an answer, interrupted when the emulator closes. */
  private readonly live = new Set<RunningAttempt>();
  /** Retries waiting for their time. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Map<string, Promise<DeliveryRecord | null>>();
  private readonly attemptListeners = new Set<(notice: DeliveryAttemptNotice) => void>();
  /** Deliveries that fell due while their plugin was held, per plugin, in the order they did. */
  private readonly parked = new Map<string, Set<string>>();
  private closed = false;
  /** What a faulted attempt calls back into. */
  private readonly faultedIo: FaultedAttemptIo;

  constructor(settings: DeliveryEngineSettings) {
    this.db = settings.db;
    this.options = settings.options;
    this.faults = settings.faults;
    this.refusal = settings.refusal;
    this.report = settings.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.http = new Agent({ connect: { timeout: this.options.timeoutMs } });
    this.slots = new DeliverySlots(this.options.concurrency, this.options.perPluginConcurrency);
    this.log = new DeliveryLog(
      this.db,
      this.options.logLimit,
      (id) => this.inFlight.has(id),
      this.report,
    );
    this.holds = new DeliveryHolds((pluginId, why) => this.holdEnded(pluginId, why));
    this.faultedIo = {
      send: (record) => this.send(record),
      save: (record) => this.log.save(record),
      notify: (record, attempt) => this.notify(record, attempt),
      exists: (id) => this.db.deliveries.has(id),
      closing: () => this.closed,
    };
  }

  /** Runs the due attempt of a delivery, once even if asked twice; resolves with the record after it (null if none ran). */
  run(id: string, judge?: AttemptJudge): Promise<DeliveryRecord | null> {
    const existing = this.inFlight.get(id);
    if (existing) return existing;
    const attempt = this.attemptOnce(id, judge).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, attempt);
    return attempt;
  }

  /** Whether an attempt of the delivery is running now. */
  isRunning(id: string): boolean {
    return this.inFlight.has(id);
  }

  /** Drops a delivery's scheduled retry (its record says what happens next). */
  unschedule(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  /** Schedules the pending deliveries after a restart; a pending challenge fails, as only the call that sent it judged its answer. */
  async resume(): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const record of this.db.deliveries.where('status', 'pending')) {
      if (!record.retries) {
        const error = `the emulator stopped before the webhook answered; ${CHALLENGE_NOT_RESENT}`;
        const outcome = { ...notSent(error), startedAt: record.nextAttemptAt ?? record.createdAt };
        const cutOff = loggedAttempt(outcome, {
          number: record.attempts.length + 1,
          url: record.url ?? '',
          error,
          nextAttemptAt: null,
        });
        closing.push(
          this.log.save({
            ...record,
            status: 'failed',
            nextAttemptAt: null,
            attempts: [...record.attempts, cutOff],
            updatedAt: nowIso(),
          }),
        );
        continue;
      }
      this.scheduleAt(
        record.id,
        record.nextAttemptAt ? Date.parse(record.nextAttemptAt) : Date.now(),
      );
    }
    await Promise.all(closing);
  }

  /** Calls `listener` with every attempt as it is logged; returns the unsubscribe function. */
  onAttempt(listener: (notice: DeliveryAttemptNotice) => void): () => void {
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  /** Announces an attempt (or a change after it, such as a cancel) to the delivery stream's listeners. */
  notify(record: DeliveryRecord, attempt: DeliveryAttempt): void {
    if (this.attemptListeners.size === 0) return;
    const view = presentDelivery(record);
    for (const listener of this.attemptListeners)
      safely(
        () => listener({ delivery: view, attempt }),
        this.report,
        `delivery ${view.id}'s attempts`,
      );
  }

  /** How many deliveries of a plugin wait for its hold to end. */
  heldCount(pluginId: string): number {
    let count = 0;
    for (const id of this.parked.get(pluginId) ?? [])
      if (this.db.deliveries.get(id)?.status === 'pending') count++;
    return count;
  }

  /** Drops every scheduled retry and every held delivery (the store was emptied); holds stay. */
  reset(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.parked.clear();
  }

  /** Stops the timers, lets attempts in flight finish briefly, then cuts them off (they stay pending for the next start). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reset();
    this.holds.clear();
    // Delayed and held attempts end without sending (they stay pending for the next start).
    this.faults.abort();
    const pending = [...this.inFlight.values()];
    await Promise.race([
      Promise.allSettled(pending),
      sleep(CLOSE_GRACE_MS, undefined, { ref: false }),
    ]);
    for (const attempt of this.live) attempt.interrupt();
    // Waiting attempts see `closed` once woken and end without sending.
    this.slots.wakeAll();
    await Promise.allSettled(pending);
    await this.http.destroy();
  }

  /** Runs one attempt; a failure of the emulator's own code is reported, never taken for the store closing. */
  private async attemptOnce(id: string, judge?: AttemptJudge): Promise<DeliveryRecord | null> {
    try {
      return await this.attempt(id, judge);
    } catch (error) {
      // Closing cuts attempts off and closes the store under them: the delivery stays pending and resumes next start.
      if (this.closed) return null;
      return this.reportFailure(id, error);
    }
  }

  private async attempt(id: string, judge?: AttemptJudge): Promise<DeliveryRecord | null> {
    this.unschedule(id);
    const queued = this.db.deliveries.get(id);
    if (this.closed || queued?.status !== 'pending') return null;
    if (this.heldBack(queued)) return this.park(queued);
    // Fault injection (off by default: one check). Challenges (retries: false) are never faulted.
    const number = queued.attempts.length + 1;
    const faulted =
      this.faults.active && queued.retries
        ? await FaultedAttempt.prepare(
            this.faults,
            queued,
            number,
            number <= this.options.schedule.length,
          )
        : null;
    if (this.closed) return null;
    const lane = await this.slots.acquire(queued.pluginId);
    try {
      const due = this.db.deliveries.get(id);
      if (this.closed || !due || due.status !== 'pending' || !due.url) return null;
      // Held while it waited for its faults or its slot: no attempt is made.
      if (this.heldBack(due)) return await this.park(due);
      const refused = this.refusal(due.url);
      let outcome: AttemptOutcome;
      if (refused !== null) outcome = notSent(refused);
      else outcome = faulted?.dropped() ?? (await this.send(due));
      if (outcome.interrupted) return null;
      const current = this.db.deliveries.get(id);
      if (!current) return null; // the store was reset meanwhile
      let problem = refused ?? judge?.(outcome) ?? null;
      if (faulted && refused === null) problem = faulted.problem(outcome, problem);
      // Cancelled while it ran: this attempt is logged, and is the last.
      const settled = this.settle(
        current,
        outcome,
        problem,
        refused !== null || Boolean(current.cancelledAt),
      );
      let record = settled.record;
      if (faulted) record = await faulted.finish(current, settled, this.faultedIo);
      else {
        await this.log.save(record);
        this.notify(record, settled.attempt);
      }
      if (record.status === 'pending' && record.nextAttemptAt)
        this.scheduleAt(id, Date.parse(record.nextAttemptAt));
      return record;
    } finally {
      this.slots.release(lane);
    }
  }

  /** Whether a delivery must wait for its plugin's hold to end (a challenge never does: dev verifies through it). */
  private heldBack(record: DeliveryRecord): boolean {
    return record.type !== 'WEBHOOK_CHALLENGE' && this.holds.isHeld(record.pluginId);
  }

  /** Sets a delivery aside until its plugin's hold ends, marked `heldSince` in the log: no attempt is spent. */
  private async park(record: DeliveryRecord): Promise<DeliveryRecord> {
    let own = this.parked.get(record.pluginId);
    if (!own) {
      own = new Set();
      this.parked.set(record.pluginId, own);
    }
    own.add(record.id);
    if (record.heldSince) return record;
    const now = nowIso();
    const held: DeliveryRecord = { ...record, heldSince: now, nextAttemptAt: null, updatedAt: now };
    await this.log.save(held);
    return held;
  }

  /** A hold ended (released, or expired unrenewed): every delivery that waited goes now, oldest first. */
  private holdEnded(pluginId: string, why: 'released' | 'expired'): void {
    const ids = [...(this.parked.get(pluginId) ?? [])];
    this.parked.delete(pluginId);
    const waiting = ids
      .map((id) => this.db.deliveries.get(id))
      .filter((record): record is DeliveryRecord => record?.status === 'pending')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    if (why === 'expired')
      this.report(
        `plugsmith emulator: the hold on plugin ${pluginId}'s deliveries expired without being renewed or released; ${waiting.length} held deliveries go now`,
      );
    if (this.closed) return;
    for (const record of waiting) {
      // A delivery set aside a moment ago may still be writing its mark: it goes once that is done.
      const parking = this.inFlight.get(record.id);
      if (parking) void parking.finally(() => this.run(record.id));
      else void this.run(record.id);
    }
  }

  /**
   * A failure inside the emulator during an attempt (a bug, a store that cannot write): told on stderr (or the
   * emulator's log) with its stack, and logged on the delivery as a failed attempt, so the delivery follows its
   * retry schedule instead of staying pending with no trace. Resolves with the record, or null when even that failed.
   */
  private async reportFailure(id: string, error: unknown): Promise<DeliveryRecord | null> {
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const stack = error instanceof Error && error.stack ? `\n${error.stack}` : '';
    this.report(
      `plugsmith emulator: an attempt of delivery ${id} failed inside the emulator (please report this): ${what}${stack}`,
    );
    const current = this.db.deliveries.get(id);
    if (current?.status !== 'pending') return null;
    const outcome = notSent(`the emulator failed before sending this attempt: ${what}`);
    try {
      const { record, attempt } = this.settle(current, outcome, null, false);
      await this.log.save(record);
      this.notify(record, attempt);
      if (record.status === 'pending' && record.nextAttemptAt)
        this.scheduleAt(id, Date.parse(record.nextAttemptAt));
      return record;
    } catch (again) {
      if (!this.closed)
        this.report(
          `plugsmith emulator: delivery ${id} stays pending: its failed attempt could not be logged either: ${again instanceof Error ? again.message : String(again)}`,
        );
      return null;
    }
  }

  /** One signed POST of a delivery's event to its URL. */
  private send(due: DeliveryRecord): Promise<AttemptOutcome> {
    return attemptDelivery({
      url: due.url!,
      eventId: due.eventId,
      body: JSON.stringify(due.event),
      // The plugin's secrets now (a rotation since the delivery was queued counts), not the queued one.
      secret: signingSecrets(this.db.plugins.get(due.pluginId), due.secret),
      timeoutMs: this.options.timeoutMs,
      http: this.http,
      live: this.live,
    });
  }

  /** The record after an attempt: delivered, retried later, or given up. */
  private settle(
    current: DeliveryRecord,
    outcome: AttemptOutcome,
    problem: string | null,
    final = false,
  ): { record: DeliveryRecord; attempt: DeliveryAttempt } {
    const success = answered2xx(outcome.status, problem);
    const number = current.attempts.length + 1;
    let status: DeliveryStatus = 'delivered';
    let nextAttemptAt: string | null = null;
    if (!success) {
      const delay =
        current.retries && !final
          ? retryDelay(this.options, number, parseRetryAfter(outcome.headers['retry-after']))
          : null;
      if (delay === null) status = current.retries && !final ? 'exhausted' : 'failed';
      else {
        status = 'pending';
        nextAttemptAt = new Date(Date.now() + delay).toISOString();
      }
    }
    const error = success
      ? null
      : (problem ?? outcome.error ?? `the webhook answered HTTP ${outcome.status}`);
    const attempt = loggedAttempt(outcome, {
      number,
      url: current.url ?? '',
      error,
      nextAttemptAt,
    });
    const record: DeliveryRecord = {
      ...current,
      heldSince: undefined,
      status,
      nextAttemptAt,
      attempts: [...current.attempts, attempt],
      updatedAt: nowIso(),
    };
    return { record, attempt };
  }

  private scheduleAt(id: string, at: number): void {
    if (this.closed) return;
    this.unschedule(id);
    // Unref'd: pending retries must not keep an embedding test process alive; the servers do that when needed.
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        void this.run(id);
      },
      Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS),
    ).unref();
    this.timers.set(id, timer);
  }
}
