import type { Exchange, ParityFile, StableValue } from './format.js';
import { JOURNEY, STREAM_PACKETS } from './journey.js';

// Compares a recording of the real platform with a replay on the emulator: status exact, every
// recorded field present with the same JSON type, values only where the recording holds them.
// Fields only the emulator answers with are listed apart: they are not failures.

/** One way the emulator answered differently from the recorded platform. */
export interface Difference {
  step: string;
  method: string;
  pathTemplate: string;
  /** `event`: an event type the platform sent that the emulator has no schema for (`parity check --event-shapes`). */
  kind: 'status' | 'envelope' | 'error-type' | 'missing-field' | 'type' | 'value' | 'event';
  /** The field, for field differences. */
  path?: string;
  /** What the platform answered (a status, a type, a stable value). */
  platform: string;
  /** What the emulator answered. */
  emulator: string;
}

/** A field the emulator answers with that the platform did not. */
export interface ExtraField {
  step: string;
  path: string;
  type: string;
}

/** The whole comparison. */
export interface ParityReport {
  ok: boolean;
  differences: Difference[];
  extras: ExtraField[];
  /** Recorded steps the replay could not run, and why. */
  notReplayed: Array<{ step: string; why: string }>;
  /** Steps the recording skipped (so nothing of theirs is compared), and why. */
  notRecorded: Array<{ step: string; why: string }>;
  /** The paragraphs of docs/emulator-behaviour.md the compared steps touch, each with those steps. */
  behaviours: Array<{ section: string; steps: string[] }>;
  compared: number;
  /** The event types compared with the emulator's event schemas (`--event-shapes`). */
  comparedEvents: string[];
}

/** Compares the recorded exchanges with the replayed ones, step by step. */
export function compareExchanges(recorded: ParityFile, replayed: Exchange[]): ParityReport {
  const byStep = new Map(replayed.map((exchange) => [exchange.step, exchange]));
  const differences: Difference[] = [];
  const extras: ExtraField[] = [];
  const notReplayed: ParityReport['notReplayed'] = [];
  const notRecorded: ParityReport['notRecorded'] = [];
  const comparedSteps: string[] = [];

  for (const platform of recorded.exchanges) {
    if (platform.status === null) {
      notRecorded.push({ step: platform.step, why: platform.skipped ?? 'not run' });
      continue;
    }
    const emulator = byStep.get(platform.step);
    if (!emulator || emulator.status === null) {
      notReplayed.push({
        step: platform.step,
        why: emulator?.skipped ?? 'this plugsmith has no such step (record again with it)',
      });
      continue;
    }
    comparedSteps.push(platform.step);
    const where = {
      step: platform.step,
      method: platform.method,
      pathTemplate: platform.pathTemplate,
    };
    if (platform.status !== emulator.status)
      differences.push({
        ...where,
        kind: 'status',
        platform: String(platform.status),
        emulator: String(emulator.status),
      });
    // A success on one side and an error on the other: the fields say nothing more than the status.
    if (statusClass(platform.status) !== statusClass(emulator.status)) continue;
    if (platform.envelope !== emulator.envelope)
      differences.push({
        ...where,
        kind: 'envelope',
        platform: String(platform.envelope),
        emulator: String(emulator.envelope),
      });
    if (platform.errorType !== emulator.errorType)
      differences.push({
        ...where,
        kind: 'error-type',
        platform: String(platform.errorType),
        emulator: String(emulator.errorType),
      });
    for (const [path, type] of Object.entries(platform.shape)) {
      const answered = own(emulator.shape, path);
      if (answered === undefined) {
        // Under a missing parent, the parent says it.
        if (!hasMissingParent(path, platform.shape, emulator.shape))
          differences.push({
            ...where,
            kind: 'missing-field',
            path,
            platform: type,
            emulator: 'absent',
          });
      } else if (answered !== type) {
        differences.push({ ...where, kind: 'type', path, platform: type, emulator: answered });
      }
    }
    for (const [path, type] of Object.entries(emulator.shape)) {
      if (own(platform.shape, path) !== undefined) continue;
      if (hasMissingParent(path, emulator.shape, platform.shape)) continue;
      extras.push({ step: platform.step, path, type });
    }
    for (const [path, value] of Object.entries(platform.values ?? {})) {
      const answered = own<StableValue>(emulator.values ?? {}, path);
      if (answered !== value && own(emulator.shape, path) !== undefined)
        differences.push({
          ...where,
          kind: 'value',
          path,
          platform: JSON.stringify(value),
          emulator: JSON.stringify(answered ?? null),
        });
    }
  }

  return {
    ok: differences.length === 0,
    differences,
    extras,
    notReplayed,
    notRecorded,
    behaviours: behavioursOf(comparedSteps),
    compared: comparedSteps.length,
    comparedEvents: [],
  };
}

function statusClass(status: number | null): number {
  return status === null ? 0 : Math.floor(status / 100);
}

/** Whether a parent path of `path` (in `mine`) is missing from `other`: then only the parent is reported. */
function hasMissingParent(
  path: string,
  mine: Record<string, string>,
  other: Record<string, string>,
): boolean {
  const parts = path.split('.');
  for (let end = parts.length - 1; end > 0; end--) {
    let parent = parts.slice(0, end).join('.');
    for (;;) {
      if (own(mine, parent) !== undefined && own(other, parent) === undefined) return true;
      if (!parent.endsWith('[]')) break;
      parent = parent.slice(0, -2);
    }
  }
  const arrayParent = path.endsWith('[]') ? path.slice(0, -2) : undefined;
  return (
    arrayParent !== undefined &&
    own(mine, arrayParent) !== undefined &&
    own(other, arrayParent) === undefined
  );
}

/** The behaviour paragraphs the steps touch, in the order the journey first touches them. */
function behavioursOf(steps: string[]): ParityReport['behaviours'] {
  const sections = new Map<string, string[]>();
  const streamStep = JOURNEY.find((step) => step.stream);
  for (const name of steps) {
    const isPacket = name === STREAM_PACKETS.first || name === STREAM_PACKETS.last;
    const step = isPacket ? streamStep : JOURNEY.find((s) => s.step === name);
    for (const section of step?.behaviours ?? []) {
      const list = sections.get(section) ?? [];
      list.push(name);
      sections.set(section, list);
    }
  }
  return [...sections].map(([section, list]) => ({ section, steps: list }));
}

/** `record[key]` when it is the record's own (a recorded path named `constructor` or `__proto__` is a path, never a member of Object.prototype). */
function own<T = string>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
