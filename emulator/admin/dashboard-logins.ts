import { createHash, randomBytes } from 'node:crypto';

/** Prefix of the session cookie's name; the management port follows, so two emulators on one host keep apart. */
export const DASHBOARD_COOKIE_PREFIX = 'plugsmith_dashboard_';
/** The path the session cookie is sent on: the admin surface only, never `/api` or `/_storage`. */
export const DASHBOARD_COOKIE_PATH = '/_emulator';

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/**
 * The dashboard's login codes and sessions of one running emulator: random, kept only as hashes,
 * in memory (they die with the emulator). A code is exchanged once for a session; a session is
 * the HttpOnly cookie the guard accepts in place of the admin header.
 */
export class DashboardLogins {
  private readonly codes = new Set<string>();
  private readonly sessions = new Set<string>();

  /** @param port the management API's port once listening (names the cookie). */
  constructor(private readonly port: () => string) {}

  /** A new single-use login code. */
  mintCode(): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.add(digest(code));
    return code;
  }

  /** Spends a login code: a new session secret, or null when the code is unknown or already used. */
  redeem(code: string): string | null {
    const key = digest(code);
    if (!this.codes.delete(key)) return null;
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(digest(session));
    return session;
  }

  /** Whether a session secret is one this emulator issued and has not ended. */
  isSession(session: string | undefined): boolean {
    return session !== undefined && session !== '' && this.sessions.has(digest(session));
  }

  /** Ends a session (sign-out). */
  end(session: string | undefined): void {
    if (session) this.sessions.delete(digest(session));
  }

  /** The session cookie's name for this emulator: `plugsmith_dashboard_<port>`. */
  cookieName(): string {
    return DASHBOARD_COOKIE_PREFIX + this.port();
  }

  /** The session secret a request's Cookie header carries for this emulator, if any. */
  sessionOf(cookieHeader: string | string[] | undefined): string | undefined {
    const header = Array.isArray(cookieHeader) ? cookieHeader.join('; ') : cookieHeader;
    if (!header) return undefined;
    const name = this.cookieName();
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
    }
    return undefined;
  }

  /** The Set-Cookie value that opens a session in the browser. */
  setCookie(session: string): string {
    return `${this.cookieName()}=${session}; HttpOnly; SameSite=Strict; Path=${DASHBOARD_COOKIE_PATH}`;
  }

  /** The Set-Cookie value that ends it. */
  clearCookie(): string {
    return `${this.cookieName()}=; HttpOnly; SameSite=Strict; Path=${DASHBOARD_COOKIE_PATH}; Max-Age=0`;
  }
}
