import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The header the dashboard sends its session in, on every admin call. Never a cookie: a browser
 * sends a host's cookies to every port of that host (cookies ignore ports) and lets any page of
 * that host set one, so a cookie would reach, and could be shadowed by, any other local server.
 * The page keeps the token in its origin's localStorage, which no other port can read.
 */
export const SESSION_HEADER = 'x-plugsmith-session';

/** How many outstanding login codes and live sessions one emulator keeps; past that the oldest go. */
export const DEFAULT_MAX_CODES = 1000;
export const DEFAULT_MAX_SESSIONS = 100;

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** A set of hashes that keeps at most `max`, forgetting the oldest first (a Set iterates in insertion order). */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  add(key: string): void {
    this.items.add(key);
    while (this.items.size > this.max) this.items.delete(this.items.values().next().value as string);
  }
  has(key: string): boolean {
    return this.items.has(key);
  }
  delete(key: string): boolean {
    return this.items.delete(key);
  }
  get size(): number {
    return this.items.size;
  }
  values(): string[] {
    return [...this.items];
  }
}

/** Limits of one emulator's login codes and sessions (tests set them small), and where sessions persist. */
export interface DashboardLoginLimits {
  maxCodes?: number;
  maxSessions?: number;
  /**
   * A file of the data dir that keeps the sessions' hashes (never the tokens), owner-only, so that a
   * signed-in tab stays signed in when the same store restarts. Without it sessions die with the emulator.
   */
  sessionsFile?: string;
}

/**
 * The dashboard's login codes and sessions of one running emulator: random, kept only as hashes,
 * in memory (codes die with the emulator; sessions too, unless a persistent store keeps their hashes
 * in `sessionsFile`), each kind capped (the oldest is evicted). A code is
 * exchanged once for a session token; the page sends the token as the `x-plugsmith-session`
 * header, which the guard accepts in place of the admin header.
 */
export class DashboardLogins {
  private readonly codes: BoundedSet;
  private readonly sessions: BoundedSet;

  private readonly sessionsFile: string | undefined;

  constructor(limits: DashboardLoginLimits = {}) {
    this.codes = new BoundedSet(Math.max(1, limits.maxCodes ?? DEFAULT_MAX_CODES));
    this.sessions = new BoundedSet(Math.max(1, limits.maxSessions ?? DEFAULT_MAX_SESSIONS));
    this.sessionsFile = limits.sessionsFile;
    if (this.sessionsFile) for (const hash of readHashes(this.sessionsFile)) this.sessions.add(hash);
  }

  /** Writes the sessions' hashes, whole or not at all, readable by the owner only. */
  private persist(): void {
    if (!this.sessionsFile) return;
    const tmp = `${this.sessionsFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ sessions: this.sessions.values() }) + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.sessionsFile);
  }

  /** A new single-use login code. */
  mintCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.add(digest(code));
    return code;
  }

  /** Spends a login code: a new session token, or null when the code is unknown, already used or evicted. */
  redeem(code: string): string | null {
    if (!this.codes.delete(digest(code))) return null;
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(digest(session));
    this.persist();
    return session;
  }

  /** Whether a session token is one this emulator issued and has neither ended nor evicted. */
  isSession(session: string | undefined): boolean {
    return session !== undefined && session !== '' && this.sessions.has(digest(session));
  }

  /** Ends a session (sign-out). */
  end(session: string | undefined): void {
    if (session && this.sessions.delete(digest(session))) this.persist();
  }

  /** How many codes and sessions are kept now. */
  counts(): { codes: number; sessions: number } {
    return { codes: this.codes.size, sessions: this.sessions.size };
  }
}

/** The session hashes a sessions file holds; none when it is missing or unreadable (everyone signs in again). */
function readHashes(file: string): string[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { sessions?: unknown };
    return Array.isArray(parsed.sessions) ? parsed.sessions.filter((h): h is string => typeof h === 'string') : [];
  } catch {
    return [];
  }
}
