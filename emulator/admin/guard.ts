import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname as machineHostname, networkInterfaces } from 'node:os';
import type { FastifyRequest } from 'fastify';
import { HttpError, forbidden, unauthorized } from '../errors.js';
import { SESSION_HEADER, type DashboardLogins } from './dashboard-logins.js';
import { markAuthenticated } from '../slow-body.js';
import { takesNoCredential } from '../open-route.js';

/** The header that carries the admin credential on every `/_emulator` call. */
export const ADMIN_HEADER = 'x-plugsmith-admin';
/** A fresh admin credential (one per emulator start unless the caller fixes it); `psa_` makes one recognisable in a log. */
export function newAdminToken(): string {
  return 'psa_' + randomBytes(24).toString('base64url');
}

/** The admin surface's access of one running emulator, with the dashboard's logins. */
export type AdminSettings = AdminAccess & { logins: DashboardLogins };

/** Who may use the admin surface of one running emulator. */
export interface AdminAccess {
  /** The credential every admin call (but health and the OpenAPI document) must carry. */
  token: string;
  /** Serve peers that are not this machine (off by default; the credential is still required). */
  allowRemote: boolean;
  /** The host the management API listens on (e.g. 127.0.0.1, 0.0.0.0, a name). */
  host: string;
  /** More names the admin API answers under (`--admin-host`): how containers or other machines reach it. */
  adminHosts?: string[];
  /** The dashboard's logins: a live session in the `x-plugsmith-session` header counts as the credential. */
  logins?: DashboardLogins;
}

/** What the guard looks at in a request. */
export interface AdminRequest {
  method: string;
  /** The path of the route that matched, as registered (e.g. `/_emulator/health`). */
  path: string;
  /** Whether that route declares that it takes no credential (`security: []` in its schema). */
  takesNoCredential: boolean;
  remoteAddress: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** The dashboard's static files: no credential (the page signs in with a login code), but only this machine, own names, own origin. */
const DASHBOARD_FILE_PATHS = new Set([
  '/_emulator/dashboard',
  '/_emulator/dashboard/',
  '/_emulator/dashboard/app.js',
  '/_emulator/dashboard/app.css',
]);
/** Where the dashboard exchanges a login code for a session: no credential yet, JSON only. */
const DASHBOARD_SESSION_PATH = '/_emulator/dashboard/session';
/** Content types a web page may send cross-origin without a preflight (the CORS "simple" ones). */
const SIMPLE_CONTENT_TYPES = new Set([
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a remote address is this machine (IPv4 127/8, IPv6 ::1, or IPv4-mapped 127/8). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** An address as compared: lower case, no IPv6 zone, IPv4-mapped IPv6 as plain IPv4. */
function plainAddress(address: string): string {
  return address
    .toLowerCase()
    .replace(/%.*$/, '')
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/** This machine's own interface addresses, in plainAddress form. */
function interfaceAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const i of list ?? []) own.add(plainAddress(i.address));
  return own;
}

/**
 * Whether a peer address is this machine: loopback, or one of its own interface addresses (a local
 * client of `--host 192.168.1.20` arrives from that address), read at each call.
 */
export function isThisMachine(
  address: string | undefined,
  ownAddresses: () => Set<string> = interfaceAddresses,
): boolean {
  if (!address) return false;
  return isLoopback(address) || ownAddresses().has(plainAddress(address));
}

/** Whether a host name (no port, IPv6 without brackets) names this machine's loopback interface. */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return (
    n === 'localhost' ||
    n.endsWith('.localhost') ||
    (isIP(n) !== 0 && (isLoopback(n) || n === '0:0:0:0:0:0:0:1'))
  );
}

/** The host name of a Host or Origin authority, lower case, without port or IPv6 brackets. */
export function hostOf(authority: string): string | null {
  const a = authority.trim().toLowerCase();
  if (a === '') return null;
  if (a.startsWith('[')) {
    const end = a.indexOf(']');
    return end > 0 ? a.slice(1, end) : null;
  }
  const colon = a.lastIndexOf(':');
  return colon >= 0 ? a.slice(0, colon) : a;
}

/** Whether the host is a wildcard (listens on every interface). */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/**
 * The names this emulator may be addressed by: loopback names, the bound host, `adminHosts`, and
 * (bound to every interface) this machine's addresses and host name. A DNS-rebinding page uses none.
 */
export function ownHostNames(host: string, adminHosts: string[] = []): (name: string) => boolean {
  const bound = hostOf(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  const extra = new Set<string>(
    adminHosts
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[|\]$/g, '')
          .replace(/\.$/, ''),
      )
      .filter((h) => h !== ''),
  );
  if (bound && !isWildcardHost(host)) extra.add(bound);
  if (isWildcardHost(host)) {
    extra.add(machineHostname().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const i of list ?? []) extra.add(i.address.toLowerCase().replace(/%.*$/, ''));
  }
  return (name) => isLoopbackName(name) || extra.has(name.toLowerCase());
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Compared as hashes: equal lengths, so the time taken tells nothing, not even the length. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (secret: string) => createHash('sha256').update(secret).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The one decision of the admin surface: null to serve the request, else the error to answer. In
 * order: a peer not on this machine (unless opted in), a Host not among the emulator's names (DNS
 * rebinding), another Origin or site (a web page), a state change in a content type a page may send
 * without a preflight, then the credential: the admin header or a live dashboard session header.
 * Never a cookie: a browser sends it to every port of a host, so any other local server would get one.
 */
export function adminRefusal(
  access: AdminAccess,
  isOwnName: (name: string) => boolean,
  request: AdminRequest,
  ownAddresses: () => Set<string> = interfaceAddresses,
): HttpError | null {
  // A route that takes no credential and only reads (health, the OpenAPI document) is served to any peer. The
  // dashboard's sign-in takes none either (its login code is in the body), but only from this machine, as JSON.
  const open = request.takesNoCredential && (request.method === 'GET' || request.method === 'HEAD');
  if (!open && !access.allowRemote && !isThisMachine(request.remoteAddress, ownAddresses)) {
    return forbidden(
      `The emulator's admin API (/_emulator) is served only to callers on this machine (you are ${request.remoteAddress ?? 'unknown'}); start the emulator with --allow-remote-admin (startEmulator({ allowRemoteAdmin: true })) to serve other machines`,
    );
  }
  const hostHeader = single(request.headers.host);
  const host = hostHeader === undefined ? null : hostOf(hostHeader);
  if (host === null || !isOwnName(host)) {
    return forbidden(
      `The admin API answers only under the emulator's own names (localhost, 127.0.0.1, [::1], the host it listens on, or a name given with --admin-host), not Host ${hostHeader ?? '(none)'}; call it by one of those names, or start the emulator with --admin-host ${host ?? '<name>'} (startEmulator({ adminHosts: ['${host ?? '<name>'}'] }))`,
    );
  }
  const origin = single(request.headers.origin);
  if (origin !== undefined && !sameOrigin(origin, hostHeader!)) {
    return forbidden(
      `The admin API does not answer web pages of other origins (Origin ${origin}); call it from the CLI, startEmulator() or curl`,
    );
  }
  const fetchSite = single(request.headers['sec-fetch-site']);
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return forbidden(
      `The admin API does not answer requests a web page of another site makes (Sec-Fetch-Site ${fetchSite}); call it from the CLI, startEmulator() or curl`,
    );
  }
  if (open) return null;
  if (
    DASHBOARD_FILE_PATHS.has(request.path) &&
    (request.method === 'GET' || request.method === 'HEAD')
  )
    return null;
  const contentType = single(request.headers['content-type'])?.split(';')[0].trim().toLowerCase();
  if (
    !SAFE_METHODS.has(request.method) &&
    contentType !== undefined &&
    SIMPLE_CONTENT_TYPES.has(contentType)
  ) {
    return new HttpError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The admin API takes no ${contentType} body (a web page can send one without asking): send JSON with content-type application/json, or no body`,
    );
  }
  if (request.path === DASHBOARD_SESSION_PATH && request.method === 'POST') {
    // The code in the JSON body is the credential here; anything but JSON is refused (no form can post it).
    if (contentType !== 'application/json') {
      return new HttpError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Sign in to the dashboard with a JSON body { "code": "<login code>" } and content-type application/json',
      );
    }
    return null;
  }
  const given = single(request.headers[ADMIN_HEADER]);
  if (given === undefined || given === '') {
    const session = single(request.headers[SESSION_HEADER]);
    if (session !== undefined && session !== '') {
      if (access.logins?.isSession(session)) return null;
      return unauthorized(
        `The ${SESSION_HEADER} header holds no live dashboard session of this emulator (it was signed out, or the emulator restarted since): open a new link from \`plugsmith emulator dashboard\``,
      );
    }
    return unauthorized(
      `The admin API needs the admin credential: send "${ADMIN_HEADER}: <adminToken>" (printed by \`plugsmith emulator start --json\`, kept in its state file emulator.json, returned by startEmulator() as adminToken), or sign in to the dashboard with a link from \`plugsmith emulator dashboard\``,
    );
  }
  if (!sameSecret(given, access.token)) {
    return unauthorized(
      `The ${ADMIN_HEADER} header does not hold this emulator's admin credential (it changes at every start): use the adminToken of the running emulator`,
    );
  }
  return null;
}

/** Whether an Origin header names the origin the request was addressed to (http, same host and port). */
function sameOrigin(origin: string, hostHeader: string): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && url.host === new URL(`http://${hostHeader}`).host;
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything unparsable
  }
}

/** The onRequest hook of the admin plugin: the only place that decides who may call `/_emulator`. */
export function adminGuard(access: AdminAccess): (request: FastifyRequest) => Promise<void> {
  const isOwnName = ownHostNames(access.host, access.adminHosts);
  return async (request) => {
    const refusal = adminRefusal(access, isOwnName, {
      method: request.method,
      // The route that matched, never the raw URL: only the route says which path is served (`/_emulator/%68ealth`).
      path: request.routeOptions.url ?? '',
      takesNoCredential: takesNoCredential(request),
      remoteAddress: request.socket.remoteAddress,
      headers: request.headers,
    });
    if (refusal) throw refusal;
    // Served on its credential (not as an open path or the sign-in): its body is bounded as everyone's, not as a stranger's.
    if (holdsAdminCredential(access, request.headers)) markAuthenticated(request.raw);
  };
}

/** Whether `headers` carry this emulator's admin credential or a live dashboard session (the guard's last check). */
function holdsAdminCredential(access: AdminAccess, headers: AdminRequest['headers']): boolean {
  const given = single(headers[ADMIN_HEADER]);
  if (given !== undefined && given !== '') return sameSecret(given, access.token);
  const session = single(headers[SESSION_HEADER]);
  return session !== undefined && session !== '' && access.logins?.isSession(session) === true;
}
