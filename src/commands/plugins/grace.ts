import { InvalidOptionValue } from '../types.js';

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };
/** The longest grace the platform gives a previous secret (the emulator's limit too). */
const MAX_GRACE_SECONDS = 30 * 86_400;

/** `--grace` as seconds: a number with a unit (`24h`, `30m`, `90s`, `500ms`, `7d`), or `0` to stop the old secret at once. */
export function parseGrace(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match || (match[2] === undefined && Number(match[1]) !== 0)) {
    throw new InvalidOptionValue(
      `--grace takes a duration such as 24h, 30m, 90s or 0 (no grace), not "${value}"`,
    );
  }
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] ?? 's'];
  if (seconds > MAX_GRACE_SECONDS)
    throw new InvalidOptionValue(
      `--grace is at most 30d (the previous secret must stop signing some day), not "${value}"`,
    );
  return seconds;
}
