import { randomBytes } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createWebhookEvent,
  LIFECYCLE_EVENTS,
  type WebhookEvent,
  type WebhookEventType,
} from '../../src/shared/webhooks/events.js';
import { newId, nowIso } from '../store/ids.js';
import type {
  DeliveryAttemptNotice,
  DispatchMode,
  FaultProfile,
  WebhookVerification,
} from '../../src/shared/contract/index.js';
import type {
  Db,
  DeliveryAttempt,
  DeliveryRecord,
  DeliveryStatus,
  EventKind,
  InstanceEntityType,
  InstanceRecord,
  PluginRecord,
} from '../model.js';
import { DeliveryLog, presentDelivery, safely, type DeliveryView } from './delivery-service.js';
import { DeliverySlots } from './slots.js';
import {
  faultProblem,
  FaultInjector,
  withDuplicate,
  type AttemptFaults,
} from './fault-injector.js';
import { emptyProfile } from '../../src/shared/fault-profile.js';
import {
  answered2xx,
  attemptDelivery,
  loggedAttempt,
  notSent,
  type AttemptOutcome,
  type RunningAttempt,
} from './attempt.js';
import { challengeProblem } from './challenge.js';
import { signingSecrets } from './signing-secrets.js';
import {
  parseRetryAfter,
  resolveDeliveryOptions,
  retryDelay,
  type DeliveryOptions,
  type ResolvedDeliveryOptions,
} from './options.js';

/** What the dispatcher is built from: the collections it reads and writes, and how it delivers. */
export interface DispatcherSettings {
  db: Db;
  options?: DeliveryOptions;
  faults?: { profile: FaultProfile; seed?: string };
  /** Why a URL must not be delivered to, or null (default: every URL may be). */
  refusal?: (url: string) => string | null;
}

/** One event for one plugin (and instance, unless it concerns the plugin alone). */
export interface EmitInput {
  plugin: PluginRecord;
  instance: InstanceRecord | null;
  data: unknown;
  /** SYNC waits for the first attempt; defaults to the instance's eventDispatchMode, else ASYNC. */
  mode?: DispatchMode;
}

/** The result of a webhook challenge; `interrupted` when the emulator stopped before the answer (it proved nothing). */
export type ChallengeResult = WebhookVerification & { deliveryId: string; interrupted?: boolean };

/** Why a WEBHOOK_CHALLENGE is not sent again; the thing to do instead. */
export const CHALLENGE_NOT_RESENT =
  'a WEBHOOK_CHALLENGE is never sent again (its answer decides verification): verify the webhook again with `plugsmith plugins verify <pluginId>` or POST /api/plugins/:pluginId/verify-webhook';

/** A refusal to redeliver, with the reason (the route answers 409). */
export class RedeliveryRefused extends Error {}

/** How long `close()` lets attempts in flight finish before cutting them off. */
const CLOSE_GRACE_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const LIFECYCLE = new Set<string>(LIFECYCLE_EVENTS);

/** Whether a plugin (and its instance) subscribes to an event kind; lifecycle events always go. */
export function subscribes(
  plugin: PluginRecord,
  instance: InstanceRecord | null,
  type: EventKind,
): boolean {
  if (LIFECYCLE.has(type)) return true;
  return plugin.events.includes(type) && (instance === null || instance.events.includes(type));
}

/** Sends events to plugin webhooks (signed, logged, retried, resumed); attempts wait for a fair slot, so a hanging webhook blocks no other. */
export class WebhookDispatcher {
  readonly options: ResolvedDeliveryOptions;
  private readonly http: Dispatcher;
  /** Attempts waiting for an answer, interrupted when the emulator closes. */
  private readonly live = new Set<RunningAttempt>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Map<string, Promise<DeliveryRecord | null>>();
  private readonly attemptListeners = new Set<(notice: DeliveryAttemptNotice) => void>();
  private readonly slots: DeliverySlots;
  /** The delivery log: `list` and `waitFor` serve the admin API and tests. */
  readonly log: DeliveryLog;
  /** Fault injection; inactive (and free) unless a profile is set. */
  readonly faults: FaultInjector;
  private closed = false;
  /** The running scenario (PUT /_emulator/scenario): new deliveries carry its name. */
  scenario: string | null = null;
  /** Why a URL must not be delivered to (the emulator's own admin paths), or null; checked before each attempt and on a webhookUrl change. */
  readonly refusal: (url: string) => string | null;
  private readonly db: Db;

  constructor(settings: DispatcherSettings) {
    const { db, options, faults } = settings;
    this.db = db;
    this.refusal = settings.refusal ?? (() => null);
    this.faults = new FaultInjector(faults?.profile ?? emptyProfile(), faults?.seed);
    this.options = resolveDeliveryOptions(options);
    this.http = new Agent({ connect: { timeout: this.options.timeoutMs } });
    this.slots = new DeliverySlots(this.options.concurrency, this.options.perPluginConcurrency);
    this.log = new DeliveryLog(db, this.options.logLimit, (id) => this.inFlight.has(id));
  }

  /** Emits one event to one plugin webhook if it subscribes; resolves with the delivery (after its first attempt when SYNC), or null. */
  async emit(type: EventKind, input: EmitInput): Promise<DeliveryView | null> {
    const { plugin, instance } = input;
    if (!subscribes(plugin, instance, type) || !plugin.webhookUrl) return null;
    const mode = input.mode ?? instance?.eventDispatchMode ?? 'ASYNC';
    const event = createWebhookEvent(type as WebhookEventType, {
      pluginId: plugin.id,
      pluginInstanceId: (instance?.id ?? null) as never,
      orgId: instance?.orgId ?? plugin.orgId,
      data: input.data as never,
    });
    const record = this.newRecord(event, plugin, mode, true);
    // Numbered now, in emission order, so a seeded run meets the same faults however attempts interleave.
    if (this.faults.active) this.faults.register(record.id);
    await this.log.save(record);
    const first = this.run(record.id);
    const settled = mode === 'SYNC' ? await first : null;
    return presentDelivery(settled ?? this.db.deliveries.get(record.id) ?? record);
  }

  /** Emits an event to each instance (of its plugin) that subscribes; resolves once SYNC instances' first attempts are done. */
  async emitForInstances(
    type: EventKind,
    instances: InstanceRecord[],
    data: unknown,
  ): Promise<DeliveryView[]> {
    const sent = await Promise.all(
      instances.map((instance) => {
        const plugin = this.db.plugins.get(instance.pluginId);
        return plugin ? this.emit(type, { plugin, instance, data }) : null;
      }),
    );
    return sent.filter((d): d is DeliveryView => d !== null);
  }

  /** Emits an event to every instance attached to an entity (e.g. REPOSITORY_FILE_ADDED to a repository's data providers). */
  emitToEntity(
    entityType: InstanceEntityType,
    entityId: string,
    type: EventKind,
    data: unknown,
  ): Promise<DeliveryView[]> {
    const instances = this.db.instances
      .where('entityId', entityId)
      .filter((i) => i.entityType === entityType);
    return this.emitForInstances(type, instances, data);
  }

  /** Sends a WEBHOOK_CHALLENGE to the plugin's webhook once (never retried) and judges the answer. */
  async challenge(plugin: PluginRecord): Promise<ChallengeResult> {
    const challenge = randomBytes(24).toString('base64url');
    const event = createWebhookEvent('WEBHOOK_CHALLENGE', {
      pluginId: plugin.id,
      pluginInstanceId: null,
      orgId: plugin.orgId,
      data: { challenge },
    });
    const record = this.newRecord(event, plugin, 'SYNC', false);
    await this.log.save(record);
    const done = await this.run(record.id, (outcome) => challengeProblem(outcome, challenge));
    if (!done)
      return {
        verified: false,
        reason: 'the emulator stopped before the webhook answered',
        deliveryId: record.id,
        interrupted: true,
      };
    if (done.status === 'delivered') return { verified: true, deliveryId: record.id };
    return {
      verified: false,
      reason: done.attempts.at(-1)?.error ?? 'no answer',
      deliveryId: record.id,
    };
  }

  /** Sends a logged delivery's event again (same event id) as a new delivery, to the plugin's current URL; resolves after its first attempt. */
  async redeliver(
    deliveryId: string,
    options: { wait?: boolean } = {},
  ): Promise<DeliveryView | null> {
    const found = this.db.deliveries.get(deliveryId);
    if (!found) return null;
    if (found.type === 'WEBHOOK_CHALLENGE') throw new RedeliveryRefused(CHALLENGE_NOT_RESENT);
    // The resend replaces a delivery still retrying: the event must not go out twice more.
    if (found.status === 'pending') await this.cancel(found.id);
    const original = this.db.deliveries.get(deliveryId) ?? found;
    const plugin = this.db.plugins.get(original.pluginId);
    const now = nowIso();
    const record: DeliveryRecord = {
      ...original,
      id: newId('dlv'),
      url: plugin?.webhookUrl ?? original.url,
      secret: plugin?.webhookSecret ?? original.secret,
      status: 'pending',
      mode: 'SYNC',
      attempts: [],
      nextAttemptAt: now,
      redeliveryOf: original.id,
      cancelledAt: undefined,
      createdAt: now,
      updatedAt: now,
    };
    await this.log.save(record);
    if (options.wait === false) {
      // Answered at once; the attempt runs on, and the stream tells how it went.
      void this.run(record.id);
      return presentDelivery(record);
    }
    return presentDelivery((await this.run(record.id)) ?? record);
  }

  /** Runs a pending delivery's next attempt now; answers at once (the outcome comes over the stream), null if unknown. */
  retryNow(deliveryId: string): DeliveryView | null {
    const record = this.db.deliveries.get(deliveryId);
    if (!record) return null;
    if (record.status !== 'pending')
      throw new RedeliveryRefused(
        `delivery ${deliveryId} is ${record.status}: only a pending delivery can be retried now (resend it instead)`,
      );
    if (this.inFlight.has(deliveryId))
      throw new RedeliveryRefused(`an attempt of delivery ${deliveryId} is running now`);
    void this.run(deliveryId);
    return presentDelivery(record);
  }

  /** Cancels a pending delivery's retries (failed, with cancelledAt); an attempt running now is logged but schedules no other. */
  async cancel(deliveryId: string): Promise<DeliveryView | null> {
    const record = this.db.deliveries.get(deliveryId);
    if (!record) return null;
    if (record.status !== 'pending')
      throw new RedeliveryRefused(
        `delivery ${deliveryId} is ${record.status}: only a pending delivery's retries can be cancelled`,
      );
    this.clearTimer(deliveryId);
    const now = nowIso();
    const cancelled: DeliveryRecord = {
      ...record,
      status: 'failed',
      nextAttemptAt: null,
      cancelledAt: now,
      updatedAt: now,
    };
    await this.log.save(cancelled);
    const last = cancelled.attempts.at(-1);
    if (last) this.notify(cancelled, last);
    return presentDelivery(cancelled);
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

  /** Drops every timer (the store was emptied). */
  reset(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    // Same profile and seed, deliveries numbered from 0: each test after a reset meets the same faults.
    if (this.faults.active) this.faults.restart();
  }

  /** Stops the timers, lets attempts in flight finish briefly, then cuts them off (they stay pending for the next start). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reset();
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

  /** A pending delivery of an event to its plugin's webhook; `retries` false for a challenge. */
  private newRecord(
    event: WebhookEvent,
    plugin: PluginRecord,
    mode: DispatchMode,
    retries: boolean,
  ): DeliveryRecord {
    const now = nowIso();
    return {
      id: newId('dlv'),
      eventId: event.id,
      type: event.type,
      pluginId: plugin.id,
      pluginInstanceId: event.pluginInstanceId,
      orgId: event.orgId,
      url: plugin.webhookUrl,
      event: event as unknown as Record<string, unknown>,
      status: 'pending',
      mode,
      retries,
      attempts: [],
      nextAttemptAt: now,
      redeliveryOf: null,
      ...(this.scenario ? { scenario: this.scenario } : {}),
      secret: plugin.webhookSecret,
      createdAt: now,
      updatedAt: now,
    };
  }

  /** Runs the due attempt of a delivery, once even if asked twice; resolves with the record after it (null if none ran). */
  private run(
    id: string,
    judge?: (outcome: AttemptOutcome) => string | null,
  ): Promise<DeliveryRecord | null> {
    const existing = this.inFlight.get(id);
    if (existing) return existing;
    const attempt = this.attemptOnce(id, judge).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, attempt);
    return attempt;
  }

  private async attemptOnce(
    id: string,
    judge?: (outcome: AttemptOutcome) => string | null,
  ): Promise<DeliveryRecord | null> {
    this.clearTimer(id);
    const queued = this.db.deliveries.get(id);
    if (this.closed || queued?.status !== 'pending') return null;
    // Fault injection (off by default: one check). Challenges (retries: false) are never faulted.
    const number = queued.attempts.length + 1;
    const faults =
      this.faults.active && queued.retries
        ? this.faults.plan(id, number, number <= this.options.schedule.length)
        : null;
    const marks = faults ? await this.faults.before(id, queued.pluginId, number, faults) : null;
    if (this.closed) return null;
    const lane = await this.slots.acquire(queued.pluginId);
    try {
      const due = this.db.deliveries.get(id);
      if (this.closed || !due || due.status !== 'pending' || !due.url) return null;
      const refused = this.refusal(due.url);
      let outcome: AttemptOutcome;
      if (refused !== null) outcome = notSent(refused);
      else if (faults?.drop)
        outcome = notSent('fault injection (drop): the attempt was not sent; the retry path runs');
      else outcome = await this.send(due);
      if (outcome.interrupted) return null;
      const current = this.db.deliveries.get(id);
      if (!current) return null; // the store was reset meanwhile
      let problem = refused ?? judge?.(outcome) ?? null;
      if (faults && marks && refused === null)
        problem = faultProblem(faults, outcome, problem, number, marks);
      // Cancelled while it ran: this attempt is logged, and is the last.
      const settled = this.settle(
        current,
        outcome,
        problem,
        refused !== null || Boolean(current.cancelledAt),
      );
      let { record } = settled;
      if (!faults) {
        await this.log.save(record);
        this.notify(record, settled.attempt);
      } else {
        if (marks && marks.length > 0) record.faults = [...(current.faults ?? []), ...marks];
        record = await this.finishFaulted(record, settled.attempt, faults);
      }
      if (record.status === 'pending' && record.nextAttemptAt)
        this.scheduleAt(id, Date.parse(record.nextAttemptAt));
      return record;
    } catch {
      // The store closed under us: the delivery stays pending in the journal and resumes next start.
      return null;
    } finally {
      this.slots.release(lane);
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

  private notify(record: DeliveryRecord, attempt: DeliveryAttempt): void {
    if (this.attemptListeners.size === 0) return;
    const view = presentDelivery(record);
    for (const listener of this.attemptListeners)
      safely(() => listener({ delivery: view, attempt }));
  }

  /**
   * Logs a faulted attempt. A delivered event drawn for duplication is sent once more first (same webhook-id,
   * an extra attempt), so 'delivered' means the plugin has had both; an answer lets held deliveries go (reorder).
   */
  private async finishFaulted(
    settled: DeliveryRecord,
    attempt: DeliveryAttempt,
    faults: AttemptFaults,
  ): Promise<DeliveryRecord> {
    let record = settled;
    let duplicate: DeliveryAttempt | null = null;
    if (record.status === 'delivered' && faults.duplicate && !this.closed && record.url) {
      const outcome = await this.send(record);
      if (!outcome.interrupted) ({ record, attempt: duplicate } = withDuplicate(record, outcome));
    }
    if (!this.db.deliveries.get(record.id)) return record; // the store was reset meanwhile
    await this.log.save(record);
    this.notify(record, attempt);
    if (duplicate) this.notify(record, duplicate);
    if (attempt.responseStatus !== null)
      this.faults.answered(record.id, record.pluginId, record.eventId);
    if (record.status !== 'pending') this.faults.finished(record.id);
    return record;
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
      status,
      nextAttemptAt,
      attempts: [...current.attempts, attempt],
      updatedAt: nowIso(),
    };
    return { record, attempt };
  }

  private scheduleAt(id: string, at: number): void {
    if (this.closed) return;
    this.clearTimer(id);
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

  private clearTimer(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }
}
