import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultMark, FaultProfile, FaultSettings } from '#contract';
import { formatFaultProfile, profileIsOn } from '#shared/fault-profile';
import { FaultDraws, newFaultSeed } from './fault-draws.js';

/** The faults drawn for one attempt, before it is sent. */
export type AttemptFaults = ReturnType<FaultInjector['plan']>;

/** The decisions of one attempt, each with its own draw. */
const DECISION = {
  delay: 0,
  delayMs: 1,
  reorder: 2,
  drop: 3,
  timeoutAfterAnswer: 4,
  duplicate: 5,
} as const;

type Held = { number: number; release: (overtakenBy: string | null) => void };

/** Fault injection: numbers deliveries by emission, draws each attempt's faults from the seed, runs the waits (`abort()` ends them). */
export class FaultInjector {
  private profile!: FaultProfile;
  private draws!: FaultDraws;
  /** The number of the next delivery, in emission order (draws are keyed by it). */
  private nextNumber = 0;
  private readonly numbers = new Map<string, number>();
  /** Deliveries held back for reordering, per plugin. */
  private readonly held = new Map<string, Set<Held>>();
  /** Aborted when the emulator closes: every delay ends at once. */
  private readonly closing = new AbortController();

  constructor(profile: FaultProfile, seed?: string) {
    this.configure(profile, seed);
  }

  get active(): boolean {
    return profileIsOn(this.profile);
  }

  settings(): FaultSettings {
    return {
      on: this.active,
      profile: formatFaultProfile(this.profile),
      rules: structuredClone(this.profile),
      seed: this.draws.seed,
    };
  }

  /** Replaces the profile and seed (a new random one when none is given) and numbers deliveries from 0 again. */
  configure(profile: FaultProfile, seed: string = newFaultSeed()): FaultSettings {
    this.profile = profile;
    this.draws = new FaultDraws(seed);
    this.nextNumber = 0;
    this.numbers.clear();
    // Deliveries held under the old profile go now.
    for (const plugin of this.held.values()) for (const h of plugin) h.release(null);
    return this.settings();
  }

  /** Keeps the profile and seed and numbers deliveries from 0 again (the store was emptied). */
  restart(): void {
    this.configure(this.profile, this.draws.seed);
  }

  /** Gives a new delivery its number (call at emission, so the order is the emission order). */
  register(deliveryId: string): void {
    this.numbers.set(deliveryId, this.nextNumber++);
  }

  /** Forgets a finished delivery. */
  finished(deliveryId: string): void {
    this.numbers.delete(deliveryId);
  }

  /** The faults of a delivery's attempt; `canRetry` false when no retry would follow a failure (then it is neither dropped nor timed out). */
  plan(deliveryId: string, attempt: number, canRetry: boolean) {
    // A delivery from before this start (resumed) or a redelivery is numbered when first seen.
    if (!this.numbers.has(deliveryId)) this.register(deliveryId);
    const number = this.numbers.get(deliveryId)!;
    const p = this.profile;
    const draw = (decision: number) => this.draws.draw(number, attempt, decision);
    const delayed = p.delay.probability > 0 && draw(DECISION.delay) < p.delay.probability;
    return {
      delayMs: delayed
        ? p.delay.minMs + Math.floor(draw(DECISION.delayMs) * (p.delay.maxMs - p.delay.minMs + 1))
        : 0,
      reorder:
        attempt === 1 &&
        p.reorder.probability > 0 &&
        draw(DECISION.reorder) < p.reorder.probability,
      drop: canRetry && p.drop > 0 && draw(DECISION.drop) < p.drop,
      timeoutAfterAnswer:
        canRetry &&
        p.timeoutAfterAnswer > 0 &&
        draw(DECISION.timeoutAfterAnswer) < p.timeoutAfterAnswer,
      duplicate: p.duplicate > 0 && draw(DECISION.duplicate) < p.duplicate,
    };
  }

  /** Runs the waits of an attempt before it is sent (reorder hold, then delay); resolves with their marks. */
  async before(
    deliveryId: string,
    pluginId: string,
    attempt: number,
    faults: AttemptFaults,
  ): Promise<FaultMark[]> {
    const marks: FaultMark[] = [];
    if (faults.reorder) {
      const started = Date.now();
      const overtakenBy = await this.hold(deliveryId, pluginId);
      marks.push({ kind: 'reorder', attempt, heldMs: Date.now() - started, overtakenBy });
    }
    if (faults.delayMs > 0) {
      await sleep(faults.delayMs, undefined, { signal: this.closing.signal, ref: false }).catch(
        () => undefined,
      );
      marks.push({ kind: 'delay', attempt, ms: faults.delayMs });
    }
    return marks;
  }

  /** Tells held deliveries of a plugin that a later delivery of it was answered: they go now, overtaken. */
  answered(deliveryId: string, pluginId: string, eventId: string): void {
    const plugin = this.held.get(pluginId);
    const number = this.numbers.get(deliveryId);
    if (!plugin || number === undefined) return;
    for (const h of plugin) if (h.number < number) h.release(eventId);
  }

  /** Ends every wait at once (the emulator is closing). */
  abort(): void {
    this.closing.abort();
    for (const plugin of this.held.values()) for (const h of plugin) h.release(null);
  }

  /** Holds a delivery until a later delivery of its plugin is answered, or the reorder window passes; resolves with the overtaking event's id. */
  private hold(deliveryId: string, pluginId: string): Promise<string | null> {
    const number = this.numbers.get(deliveryId) ?? -1;
    const own = this.held.get(pluginId) ?? new Set<Held>();
    this.held.set(pluginId, own);
    return new Promise((resolve) => {
      const entry: Held = {
        number,
        release: (overtakenBy) => {
          clearTimeout(timer);
          own.delete(entry);
          if (own.size === 0 && this.held.get(pluginId) === own) this.held.delete(pluginId);
          resolve(overtakenBy);
        },
      };
      const timer = setTimeout(() => entry.release(null), this.profile.reorder.windowMs).unref();
      own.add(entry);
    });
  }
}
