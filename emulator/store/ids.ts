import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let lastTime = 0;
let counter = 0;

/** A new record id: `<prefix>_`, time, a per-millisecond counter and random characters: sorted by creation, never repeated in a process. */
export function newId(prefix: string): string {
  const now = Date.now();
  counter = now > lastTime ? 0 : counter + 1;
  lastTime = Math.max(lastTime, now);
  return `${prefix}_${encode(lastTime, 10)}${encode(counter, 4)}${randomChars(6)}`;
}

let lastIso = 0;
/** The current time as an ISO string that never goes backwards inside this process. */
export function nowIso(): string {
  lastIso = Math.max(lastIso, Date.now());
  return new Date(lastIso).toISOString();
}

function encode(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

function randomChars(length: number): string {
  let out = '';
  for (const byte of randomBytes(length)) out += ALPHABET[byte % 32];
  return out;
}

/** A random secret string with a kind prefix, e.g. `pst_…` for a user token. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}
