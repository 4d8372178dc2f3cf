import { randomBytes } from 'node:crypto';
import { createWebhookEvent, LIFECYCLE_EVENTS, type WebhookEvent } from '#shared/webhooks/events';
import { newId, nowIso } from '../store/ids.js';
import type {
  DeliveryAttemptNotice,
  DeliveryHold,
  DispatchMode,
  FaultProfile,
  WebhookVerification,
} from '#contract';
import type {
  Db,
  DeliveryRecord,
  EventKind,
  InstanceEntityType,
  InstanceRecord,
  PluginRecord,
} from '../model.js';
import { presentDelivery, type DeliveryLog, type DeliveryView } from './delivery-service.js';
import { FaultInjector } from './fault-injector.js';
import { emptyProfile } from '#shared/fault-profile';
import { challengeProblem } from './challenge.js';
import { CHALLENGE_NOT_RESENT, DeliveryEngine } from './delivery-engine.js';
import {
  resolveDeliveryOptions,
  type DeliveryOptions,
  type ResolvedDeliveryOptions,
} from './options.js';

export { CHALLENGE_NOT_RESENT } from './delivery-engine.js';

/** What the dispatcher is built from: the collections it reads and writes, and how it delivers. */
export interface DispatcherSettings {
  db: Db;
  options?: DeliveryOptions;
  faults?: { profile: FaultProfile; seed?: string };
  /** Why a URL must not be delivered to, or null (default: every URL may be). */
  refusal?: (url: string) => string | null;
  /** Where a failure inside the emulator during an attempt is reported; default stderr. */
  log?: (line: string) => void;
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

/** A refusal to redeliver, with the reason (the route answers 409). */
export class RedeliveryRefused extends Error {}

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

/**
 * Emits events to plugin webhooks: it decides which deliveries exist (an emitted event, a challenge, a resend)
 * and what a person may do with one (retry now, cancel); the delivery engine runs their attempts (signed, logged,
 * retried, resumed; a fair slot each, so a hanging webhook blocks no other).
 */
export class WebhookDispatcher {
  readonly options: ResolvedDeliveryOptions;
  /** The delivery log: `list` and `waitFor` serve the admin API and tests. */
  readonly log: DeliveryLog;
  /** Fault injection; inactive (and free) unless a profile is set. */
  readonly faults: FaultInjector;
  /** Why a URL must not be delivered to (the emulator's own admin paths), or null; checked before each attempt and on a webhookUrl change. */
  readonly refusal: (url: string) => string | null;
  private readonly engine: DeliveryEngine;
  private readonly db: Db;
  /** The running scenario (PUT /_emulator/scenario): new deliveries carry its name. */
  private scenarioName: string | null = null;

  constructor(settings: DispatcherSettings) {
    const { db, options, faults } = settings;
    this.db = db;
    this.refusal = settings.refusal ?? (() => null);
    this.faults = new FaultInjector(faults?.profile ?? emptyProfile(), faults?.seed);
    this.options = resolveDeliveryOptions(options);
    this.engine = new DeliveryEngine({
      db,
      options: this.options,
      faults: this.faults,
      refusal: this.refusal,
      log: settings.log,
    });
    this.log = this.engine.log;
  }

  /** The running scenario whose name new deliveries carry, or null. */
  get scenario(): string | null {
    return this.scenarioName;
  }

  /** Names the running scenario: deliveries emitted from now on carry it as `scenario` (null: none). */
  tagScenario(name: string | null): void {
    this.scenarioName = name;
  }

  /**
   * Holds a plugin's deliveries, new and retried, for `forMs` (default `delivery.holdMs`, 60 s) unless renewed
   * (called again) or released: no attempt is made meanwhile (challenges excepted), and none is spent.
   */
  hold(pluginId: string, forMs = this.options.holdMs): DeliveryHold {
    this.engine.holds.hold(pluginId, forMs);
    return this.holdState(pluginId);
  }

  /** Ends a plugin's hold: every delivery that waited goes now, oldest first. */
  releaseHold(pluginId: string): DeliveryHold {
    const released = this.engine.heldCount(pluginId);
    this.engine.holds.release(pluginId);
    return { ...this.holdState(pluginId), released };
  }

  /** Whether a plugin's deliveries are held, until when, and how many wait. */
  holdState(pluginId: string): DeliveryHold {
    return {
      pluginId,
      ...this.engine.holds.state(pluginId),
      heldDeliveries: this.engine.heldCount(pluginId),
    };
  }

  /** Holds every plugin the store has (startEmulator's `holdDeliveries`, before the pending deliveries resume). */
  holdEveryPlugin(): void {
    for (const plugin of this.db.plugins.values()) this.hold(plugin.id);
  }

  /** Emits one event to one plugin webhook if it subscribes; resolves with the delivery (after its first attempt when SYNC), or null. */
  async emit(type: EventKind, input: EmitInput): Promise<DeliveryView | null> {
    const { plugin, instance } = input;
    if (!subscribes(plugin, instance, type) || !plugin.webhookUrl) return null;
    const mode = input.mode ?? instance?.eventDispatchMode ?? 'ASYNC';
    const event = createWebhookEvent(type, {
      pluginId: plugin.id,
      pluginInstanceId: instance?.id ?? null,
      orgId: instance?.orgId ?? plugin.orgId,
      data: input.data,
    });
    const record = this.newRecord(event, plugin, mode, true);
    // Numbered now, in emission order, so a seeded run meets the same faults however attempts interleave.
    if (this.faults.active) this.faults.register(record.id);
    await this.log.save(record);
    const first = this.engine.run(record.id);
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
    const done = await this.engine.run(record.id, (outcome) =>
      challengeProblem(outcome, challenge),
    );
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
      void this.engine.run(record.id);
      return presentDelivery(record);
    }
    return presentDelivery((await this.engine.run(record.id)) ?? record);
  }

  /** Runs a pending delivery's next attempt now; answers at once (the outcome comes over the stream), null if unknown. */
  retryNow(deliveryId: string): DeliveryView | null {
    const record = this.db.deliveries.get(deliveryId);
    if (!record) return null;
    if (record.status !== 'pending')
      throw new RedeliveryRefused(
        `delivery ${deliveryId} is ${record.status}: only a pending delivery can be retried now (resend it instead)`,
      );
    if (this.engine.isRunning(deliveryId))
      throw new RedeliveryRefused(`an attempt of delivery ${deliveryId} is running now`);
    if (this.engine.holds.isHeld(record.pluginId))
      throw new RedeliveryRefused(
        `the deliveries of plugin ${record.pluginId} are held (PUT /_emulator/plugins/:pluginId/hold): release the hold (DELETE …/hold) and they go at once`,
      );
    void this.engine.run(deliveryId);
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
    this.engine.unschedule(deliveryId);
    const now = nowIso();
    const cancelled: DeliveryRecord = {
      ...record,
      status: 'failed',
      nextAttemptAt: null,
      heldSince: undefined,
      cancelledAt: now,
      updatedAt: now,
    };
    await this.log.save(cancelled);
    const last = cancelled.attempts.at(-1);
    if (last) this.engine.notify(cancelled, last);
    return presentDelivery(cancelled);
  }

  /** Schedules the pending deliveries after a restart; a pending challenge fails, as only the call that sent it judged its answer. */
  resume(): Promise<void> {
    return this.engine.resume();
  }

  /** Calls `listener` with every attempt as it is logged; returns the unsubscribe function. */
  onAttempt(listener: (notice: DeliveryAttemptNotice) => void): () => void {
    return this.engine.onAttempt(listener);
  }

  /** Drops every timer (the store was emptied). */
  reset(): void {
    this.engine.reset();
    // Same profile and seed, deliveries numbered from 0: each test after a reset meets the same faults.
    if (this.faults.active) this.faults.restart();
  }

  /** Stops the timers, lets attempts in flight finish briefly, then cuts them off (they stay pending for the next start). */
  close(): Promise<void> {
    return this.engine.close();
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
      event,
      status: 'pending',
      mode,
      retries,
      attempts: [],
      nextAttemptAt: now,
      redeliveryOf: null,
      ...(this.scenarioName ? { scenario: this.scenarioName } : {}),
      secret: plugin.webhookSecret,
      createdAt: now,
      updatedAt: now,
    };
  }
}
