import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The header the dashboard sends its session in. Never a cookie: a browser sends a host's cookies
 * to every port of that host and lets any page of it set one, so any other local server would get
 * (or shadow) it. The page keeps the token in its origin's localStorage, which no other port reads.
 */
export const SESSION_HEADER = 'x-plugsmith-session';

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** Adds `key`, then forgets the oldest items past `max` (a Set iterates in insertion order). */
function addBounded(items: Set<string>, key: string, max: number): void {
  items.add(key);
  while (items.size > max) items.delete(items.values().next().value as string);
}

/** Limits of one emulator's login codes and sessions (tests set them small), and where sessions persist. */
interface DashboardLoginLimits {
  maxCodes?: number;
  maxSessions?: number;
  /** A file that keeps the sessions' hashes (owner-only), so a signed-in tab survives a restart of the same store. */
  sessionsFile?: string;
}

/** The dashboard's login codes and sessions: random, kept as hashes only, capped (the oldest go); a code is exchanged once for a session. */
export class DashboardLogins {
  private readonly codes = new Set<string>();
  private readonly sessions = new Set<string>();
  private readonly maxCodes: number;
  private readonly maxSessions: number;
  private readonly sessionsFile: string | undefined;

  constructor(limits: DashboardLoginLimits = {}) {
    this.maxCodes = Math.max(1, limits.maxCodes ?? 1000);
    this.maxSessions = Math.max(1, limits.maxSessions ?? 100);
    this.sessionsFile = limits.sessionsFile;
    if (this.sessionsFile)
      for (const hash of readHashes(this.sessionsFile))
        addBounded(this.sessions, hash, this.maxSessions);
  }

  /** Writes the sessions' hashes, whole or not at all, readable by the owner only. */
  private persist(): void {
    if (!this.sessionsFile) return;
    const tmp = `${this.sessionsFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ sessions: [...this.sessions] }) + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.sessionsFile);
  }

  /** A new single-use login code. */
  mintCode(): string {
    const code = randomBytes(24).toString('base64url');
    addBounded(this.codes, digest(code), this.maxCodes);
    return code;
  }

  /** Spends a login code: a new session token, or null when the code is unknown, already used or evicted. */
  redeem(code: string): string | null {
    if (!this.codes.delete(digest(code))) return null;
    const session = randomBytes(32).toString('base64url');
    addBounded(this.sessions, digest(session), this.maxSessions);
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
    return Array.isArray(parsed.sessions)
      ? parsed.sessions.filter((h): h is string => typeof h === 'string')
      : [];
  } catch {
    return [];
  }
}
