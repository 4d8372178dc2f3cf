import { adminCall, call, emulator } from '../../kit/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type FaultMark } from '../../../emulator/index.js';
import {
  FaultProfileError,
  parseFaultProfile,
  formatFaultProfile,
} from '../../../src/shared/fault-profile.js';
import {
  verifiedPlugin,
  verifyReceived,
  WebhookServer,
  type Received,
} from '../../kit/webhook-server.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file tests that startEmulator refuses a bad fault profile.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An emulator with short retries and an EVENT_HANDLER plugin whose webhook is a real server on port 0. */
async function setup(options: EmulatorOptions) {
  const hook = await WebhookServer.start();
  const emu = await emulator({
    delivery: { schedule: [30, 30, 30], jitter: 0 },
    log: () => undefined,
    ...options,
  });
  cleanups.push(() => hook.close());
  const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    events: ['AGENT_MESSAGE_RECEIVED'],
  });
  const record = emulatorInternals(emu).db.plugins.get(plugin.id)!;
  /** Emits one AGENT_MESSAGE_RECEIVED (numbered by `n`) and resolves once it is delivered. */
  const emit = async (n: number) => {
    const sent = await emulatorInternals(emu).dispatcher.emit('AGENT_MESSAGE_RECEIVED', {
      plugin: record,
      instance: null,
      data: { n },
    });
    return emu.waitForDelivery({ eventId: sent!.eventId, timeoutMs: 5000 });
  };
  const messages = () => hook.ofType('AGENT_MESSAGE_RECEIVED');
  return { emu, hook, plugin, emit, messages };
}

/** The number an event was emitted with (its data is `{ n }`). */
const nOf = (r: Received) => (r.event.data as unknown as { n: number }).n;
const kinds = (marks: FaultMark[] | undefined) =>
  (marks ?? []).map((m) => `${m.kind}@${m.attempt}`);

describe('fault profiles', () => {
  it('reads the compact syntax and writes it back', () => {
    const profile = parseFaultProfile(
      'duplicate=0.2,delay=100-500ms,reorder=0.1,drop=10%,timeout-after-answer=0.05',
    );
    expect(profile).toEqual({
      duplicate: 0.2,
      delay: { probability: 1, minMs: 100, maxMs: 500 },
      reorder: { probability: 0.1, windowMs: 1000 },
      drop: 0.1,
      timeoutAfterAnswer: 0.05,
    });
    expect(formatFaultProfile(profile)).toBe(
      'duplicate=0.2,delay=100-500ms,reorder=0.1,drop=0.1,timeout-after-answer=0.05',
    );
    expect(parseFaultProfile('delay=0.5:1-2s,reorder=1:250ms').delay).toEqual({
      probability: 0.5,
      minMs: 1000,
      maxMs: 2000,
    });
    expect(formatFaultProfile(parseFaultProfile('off'))).toBe('off');
  });

  it('names every bad part', () => {
    let error: unknown;
    try {
      parseFaultProfile('dup=0.2,drop=2,delay=500-100ms,reorder');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FaultProfileError);
    expect((error as FaultProfileError).problems.map((p) => p.part)).toEqual([
      'dup=0.2',
      'drop=2',
      'delay=500-100ms',
      'reorder',
    ]);
    expect((error as FaultProfileError).message).toMatch(
      /unknown fault "dup": one of duplicate, delay/,
    );
    // A known kind without a value gets its own example; a word that is no kind never gets "garbage=0.1".
    expect((error as FaultProfileError).message).toContain('e.g. reorder=0.1');
    expect(() => parseFaultProfile('garbage')).toThrow(
      /"garbage": expected kind=value with a kind of duplicate, delay.*, e\.g\. duplicate=0\.1/,
    );
  });
});

describe('fault injection on the wire', () => {
  it('is off by default: one request per event, nothing marked', async () => {
    const { emu, emit, messages } = await setup({});
    const delivery = await emit(1);
    expect(messages()).toHaveLength(1);
    expect(delivery.faults).toBeUndefined();
    expect(emu.faults.get().on).toBe(false);
  });

  it('duplicate: the plugin receives the event twice with the same webhook-id, both signed', async () => {
    const { emit, messages, plugin } = await setup({ faults: 'duplicate=1', faultsSeed: 1 });
    const delivery = await emit(1);
    const got = messages();
    expect(got).toHaveLength(2);
    expect(got[0].headers['webhook-id']).toBe(delivery.eventId);
    expect(got[1].headers['webhook-id']).toBe(delivery.eventId);
    for (const r of got) verifyReceived(r, plugin.webhookSecret);
    expect(delivery.status).toBe('delivered');
    expect(delivery.faults).toEqual([{ kind: 'duplicate', attempt: 2, of: 1 }]);
  });

  it('drop: the attempt is never sent and the retry delivers it; challenges are never faulted', async () => {
    // The plugin was verified in setup under drop=1: the challenge went through untouched.
    const { emit, messages } = await setup({ faults: 'drop=1', faultsSeed: 1 });
    const delivery = await emit(1);
    // Every attempt that may be retried is dropped; the last (no retry after it) goes out.
    expect(kinds(delivery.faults)).toEqual(['drop@1', 'drop@2', 'drop@3']);
    expect(delivery.attempts.map((a) => a.responseStatus)).toEqual([null, null, null, 200]);
    expect(delivery.attempts[0].error).toMatch(/fault injection \(drop\)/);
    expect(messages()).toHaveLength(1);
    expect(messages()[0].headers['webhook-id']).toBe(delivery.eventId);
  });

  it('timeout-after-answer: the plugin answered, yet the event comes again with the same webhook-id', async () => {
    const { emit, messages } = await setup({ faults: 'timeout-after-answer=1', faultsSeed: 1 });
    const delivery = await emit(1);
    expect(messages()).toHaveLength(4);
    expect(new Set(messages().map((r) => r.headers['webhook-id']))).toEqual(
      new Set([delivery.eventId]),
    );
    expect(delivery.faults).toEqual(
      [1, 2, 3].map((attempt) => ({ kind: 'timeout-after-answer', attempt, answeredStatus: 200 })),
    );
    expect(delivery.attempts[0]).toMatchObject({
      responseStatus: 200,
      error: expect.stringMatching(/timeout-after-answer/),
    });
    expect(delivery.status).toBe('delivered');
  });

  it('delay: each attempt waits a time within the range before it is sent', async () => {
    const { emit, messages } = await setup({ faults: 'delay=120-200ms', faultsSeed: 1 });
    for (const n of [1, 2, 3]) {
      const emitted = Date.now();
      const delivery = await emit(n);
      const [mark] = delivery.faults as Array<Extract<FaultMark, { kind: 'delay' }>>;
      expect(mark.kind).toBe('delay');
      expect(mark.ms).toBeGreaterThanOrEqual(120);
      expect(mark.ms).toBeLessThanOrEqual(200);
      const arrived = messages().find((r) => nOf(r) === n)!.at;
      expect(arrived - emitted).toBeGreaterThanOrEqual(mark.ms - 5);
    }
  });

  it('reorder: a held event arrives after the next event of the same plugin', async () => {
    // Seed 4 draws a reorder for the first event and none for the second (their marks say so).
    const { emu, hook, plugin, messages } = await setup({
      faults: 'reorder=0.5:5s',
      faultsSeed: 4,
    });
    const record = emulatorInternals(emu).db.plugins.get(plugin.id)!;
    const first = await emulatorInternals(emu).dispatcher.emit('AGENT_MESSAGE_RECEIVED', {
      plugin: record,
      instance: null,
      data: { n: 1 },
    });
    const second = await emulatorInternals(emu).dispatcher.emit('AGENT_MESSAGE_RECEIVED', {
      plugin: record,
      instance: null,
      data: { n: 2 },
    });
    await hook.waitFor(2, 'AGENT_MESSAGE_RECEIVED');
    expect(messages().map((r) => nOf(r))).toEqual([2, 1]);
    const held = await emu.waitForDelivery({ eventId: first!.eventId });
    expect(held.faults).toEqual([
      expect.objectContaining({ kind: 'reorder', attempt: 1, overtakenBy: second!.eventId }),
    ]);
    expect((await emu.waitForDelivery({ eventId: second!.eventId })).faults).toBeUndefined();
  });

  it('a seeded run meets the same faults twice; another seed meets others', async () => {
    const profile = 'duplicate=0.3,drop=0.3,timeout-after-answer=0.3,delay=0.3:1-10ms';
    const run = async (seed: string) => {
      const { emit, messages } = await setup({ faults: profile, faultsSeed: seed });
      const marks: string[][] = [];
      for (let n = 0; n < 12; n++) marks.push(kinds((await emit(n)).faults));
      // The wire: which event each request carried, in arrival order.
      return { marks, wire: messages().map((r) => nOf(r)) };
    };
    const a = await run('repro-7');
    const b = await run('repro-7');
    expect(b).toEqual(a);
    expect(a.marks.flat().length).toBeGreaterThan(0);
    const c = await run('another-seed');
    expect(c.marks).not.toEqual(a.marks);
  });

  it('emu.reset() keeps the profile and seed and numbers deliveries from 0 again', async () => {
    const { emu, emit, hook } = await setup({
      faults: 'duplicate=0.5,drop=0.5',
      faultsSeed: 'reset',
    });
    const round = async () => {
      const marks: string[][] = [];
      for (let n = 0; n < 6; n++) marks.push(kinds((await emit(n)).faults));
      return marks;
    };
    const first = await round();
    await emu.reset();
    // The plugin is gone with the store: register it again (its challenge is never faulted nor numbered).
    const again = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
    });
    const record = emulatorInternals(emu).db.plugins.get(again.id)!;
    const second: string[][] = [];
    for (let n = 0; n < 6; n++) {
      const sent = await emulatorInternals(emu).dispatcher.emit('AGENT_MESSAGE_RECEIVED', {
        plugin: record,
        instance: null,
        data: { n },
      });
      second.push(
        kinds((await emu.waitForDelivery({ eventId: sent!.eventId, timeoutMs: 5000 })).faults),
      );
    }
    expect(second).toEqual(first);
    expect(first.flat().length).toBeGreaterThan(0);
  });
});

describe('PUT /_emulator/faults', () => {
  it('changes the faults at run time, shows them on GET, and refuses a bad profile with details', async () => {
    const { emu, emit, messages } = await setup({});
    const bad = await adminCall(emu, 'PUT', '/_emulator/faults', {
      body: {
        profile: 'duplicate=2,explode=1',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.error).toBe('VALIDATION_ERROR');
    expect(bad.body.error.details.map((d: { received: string }) => d.received)).toEqual([
      'duplicate=2',
      'explode=1',
    ]);
    const badSeed = await adminCall(emu, 'PUT', '/_emulator/faults', {
      body: {
        profile: 'drop=0.1',
        seed: 'no spaces',
      },
    });
    expect(badSeed.status).toBe(400);
    expect(badSeed.body.error.details[0].path).toEqual(['seed']);

    const set = await adminCall(emu, 'PUT', '/_emulator/faults', {
      body: {
        profile: 'duplicate=1',
        seed: 42,
      },
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ on: true, profile: 'duplicate=1', seed: '42' });
    expect((await adminCall(emu, 'GET', '/_emulator/faults')).body.data).toMatchObject({
      on: true,
      profile: 'duplicate=1',
      seed: '42',
    });
    await emit(1);
    expect(messages()).toHaveLength(2);

    const off = await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'off' } });
    expect(off.body.data.on).toBe(false);
    await emit(2);
    expect(messages()).toHaveLength(3);
    // Guarded like every admin route.
    const unguarded = await call(emu.url, 'PUT', '/_emulator/faults', { body: { profile: 'off' } });
    expect(unguarded.status).toBe(401);
  });

  it('startEmulator refuses a bad profile before it listens', async () => {
    await expect(startEmulator({ faults: 'drop=0.1,,delay=abc' })).rejects.toThrow(
      FaultProfileError,
    );
  });
});
