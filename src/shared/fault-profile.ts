import type { FaultProfile } from './contract/index.js';

/** A fault profile or seed that cannot be used; `problems` names each bad part of the text and what is wrong with it. */
export class FaultProfileError extends Error {
  constructor(readonly problems: Array<{ part: string; message: string }>) {
    super(problems.map((p) => `"${p.part}": ${p.message}`).join('; '));
    this.name = 'FaultProfileError';
  }
}

/** The reorder hold when the profile gives none. */
const DEFAULT_REORDER_WINDOW_MS = 1000;
const MAX_DURATION_MS = 60_000;
export const FAULT_PROFILE_SYNTAX =
  'comma-separated kind=value: duplicate=P, delay=[P:]MIN-MAXms (or ms/s, one value for a fixed delay), reorder=P[:WINDOW], drop=P, timeout-after-answer=P; P is a probability from 0 to 1, e.g. duplicate=0.2,delay=100-500ms,reorder=0.1,drop=0.1,timeout-after-answer=0.05';

/** How the value of each kind of fault is read into a profile, in the order the syntax lists them. */
const READERS = {
  duplicate: (value, profile) => (profile.duplicate = probability(value)),
  delay: (value, profile) => {
    const colon = value.indexOf(':');
    const p = colon < 0 ? 1 : probability(value.slice(0, colon));
    const [minMs, maxMs] = durationRange(colon < 0 ? value : value.slice(colon + 1));
    profile.delay = { probability: p, minMs, maxMs };
  },
  reorder: (value, profile) => {
    const colon = value.indexOf(':');
    const p = probability(colon < 0 ? value : value.slice(0, colon));
    const windowMs = colon < 0 ? DEFAULT_REORDER_WINDOW_MS : duration(value.slice(colon + 1));
    if (windowMs <= 0) throw new Error('the reorder window must be longer than 0 ms');
    profile.reorder = { probability: p, windowMs };
  },
  drop: (value, profile) => (profile.drop = probability(value)),
  'timeout-after-answer': (value, profile) => (profile.timeoutAfterAnswer = probability(value)),
} satisfies Record<string, (value: string, profile: FaultProfile) => void>;
const FAULT_KINDS = Object.keys(READERS) as Array<keyof typeof READERS>;

/** The profile with every fault off. */
export function emptyProfile(): FaultProfile {
  return {
    duplicate: 0,
    delay: { probability: 0, minMs: 0, maxMs: 0 },
    reorder: { probability: 0, windowMs: DEFAULT_REORDER_WINDOW_MS },
    drop: 0,
    timeoutAfterAnswer: 0,
  };
}

/** Reads a fault profile (FAULT_PROFILE_SYNTAX); `off`, `none` or empty is all off. Throws FaultProfileError naming every bad part. */
export function parseFaultProfile(text: string): FaultProfile {
  const profile = emptyProfile();
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'off' || trimmed === 'none') return profile;
  const problems: FaultProfileError['problems'] = [];
  const seen = new Set<string>();
  for (const raw of trimmed.split(',')) {
    const part = raw.trim();
    const eq = part.indexOf('=');
    if (eq < 0) {
      problems.push({
        part,
        message:
          part === ''
            ? 'empty entry (two commas in a row?)'
            : Object.hasOwn(READERS, part)
              ? `expected kind=value, e.g. ${part}=0.1`
              : `expected kind=value with a kind of ${FAULT_KINDS.join(', ')}, e.g. duplicate=0.1`,
      });
      continue;
    }
    const kind = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!Object.hasOwn(READERS, kind)) {
      problems.push({ part, message: `unknown fault "${kind}": one of ${FAULT_KINDS.join(', ')}` });
      continue;
    }
    if (seen.has(kind)) {
      problems.push({ part, message: `"${kind}" is given twice` });
      continue;
    }
    seen.add(kind);
    try {
      READERS[kind as keyof typeof READERS](value, profile);
    } catch (error) {
      problems.push({ part, message: (error as Error).message });
    }
  }
  if (problems.length > 0) throw new FaultProfileError(problems);
  return profile;
}

/** The profile written back in the syntax `parseFaultProfile` reads (only the faults that are on); 'off' when none is. */
export function formatFaultProfile(profile: FaultProfile): string {
  const parts: string[] = [];
  if (profile.duplicate > 0) parts.push(`duplicate=${profile.duplicate}`);
  if (profile.delay.probability > 0) {
    const range =
      profile.delay.minMs === profile.delay.maxMs
        ? `${profile.delay.minMs}ms`
        : `${profile.delay.minMs}-${profile.delay.maxMs}ms`;
    parts.push(
      `delay=${profile.delay.probability === 1 ? '' : `${profile.delay.probability}:`}${range}`,
    );
  }
  if (profile.reorder.probability > 0)
    parts.push(
      `reorder=${profile.reorder.probability}${profile.reorder.windowMs === DEFAULT_REORDER_WINDOW_MS ? '' : `:${profile.reorder.windowMs}ms`}`,
    );
  if (profile.drop > 0) parts.push(`drop=${profile.drop}`);
  if (profile.timeoutAfterAnswer > 0)
    parts.push(`timeout-after-answer=${profile.timeoutAfterAnswer}`);
  return parts.length > 0 ? parts.join(',') : 'off';
}

/** Whether any fault of the profile is on. */
export function profileIsOn(profile: FaultProfile): boolean {
  return (
    profile.duplicate > 0 ||
    profile.delay.probability > 0 ||
    profile.reorder.probability > 0 ||
    profile.drop > 0 ||
    profile.timeoutAfterAnswer > 0
  );
}

/** Checks a fault seed: 1 to 64 letters, digits, `_`, `-` or `.`. Throws FaultProfileError. */
export function checkFaultSeed(seed: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(seed))
    throw new FaultProfileError([
      { part: seed, message: 'a fault seed is 1 to 64 letters, digits, "_", "-" or "."' },
    ]);
  return seed;
}

function probability(text: string): number {
  const t = text.trim();
  if (!/^(\d+(\.\d+)?%?|\.\d+)$/.test(t))
    throw new Error(
      `"${t}" is not a probability: write a number from 0 to 1 (0.1) or a percentage (10%)`,
    );
  const n = t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : Number(t);
  if (!(n >= 0 && n <= 1)) throw new Error(`${t} is outside 0..1`);
  return n;
}

function duration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new Error(`"${text.trim()}" is not a duration: write 250ms or 2s`);
  const ms = Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
  if (ms > MAX_DURATION_MS)
    throw new Error(`${text.trim()} is longer than the most allowed (${MAX_DURATION_MS / 1000}s)`);
  return ms;
}

function durationRange(text: string): [number, number] {
  const t = text.trim();
  // 100-500ms: the unit of the end applies to both ends unless the start has its own.
  const m = /^(\d+(?:\.\d+)?)(ms|s)?-(\d+(?:\.\d+)?)(ms|s)?$/.exec(t);
  if (!m) return [duration(t), duration(t)];
  const unit = m[4] ?? m[2];
  const min = duration(m[1] + (m[2] ?? unit ?? ''));
  const max = duration(m[3] + (unit ?? ''));
  if (min > max) throw new Error(`the range ${t} ends before it starts: write MIN-MAX`);
  return [min, max];
}
