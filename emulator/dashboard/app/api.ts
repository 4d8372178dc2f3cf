import { SseParser, type ServerSentEvent } from '#shared/http/sse';
import type { Workspace } from '#contract/dashboard';

/**
 * What the dashboard knows of the emulator it runs in, from `GET|POST /_emulator/dashboard/session`:
 * where the two APIs are and the default workspace's credentials (the dashboard calls `/api` and
 * the messaging API as a client would, with this token and API key). Defined once, in the contract.
 */
export type { Workspace } from '#contract/dashboard';

/** An error answer of one of the emulator's APIs, with its `details` for showing inline. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly details: Array<{ path?: string[]; message?: string; code?: string }> = [],
  ) {
    super(message);
  }
}

/** Which API a call goes to: the admin surface (`/_emulator`, session header), management (`/api`, token) or messaging (API key). */
export type Target = 'admin' | 'api' | 'messaging';

/** The header the admin surface takes the dashboard's session in (see emulator/admin/dashboard-logins.ts). */
export const SESSION_HEADER = 'x-plugsmith-session';
/**
 * Where the session token is kept: this origin's localStorage (scheme, host and port), so the tabs
 * of this emulator share it and a page of any other origin, another port of the same host
 * included, cannot read it. Never a cookie: a browser sends a host's cookies to all its ports.
 */
export const SESSION_STORAGE_KEY = 'plugsmith.dashboard.session';

let workspace: Workspace | null = null;
const signedOutListeners = new Set<() => void>();

/** Called once the session is established. */
export function setWorkspace(value: Workspace | null): void {
  workspace = value;
}

/** The workspace of the current session (throws before sign-in). */
export function currentWorkspace(): Workspace {
  if (!workspace) throw new Error('not signed in');
  return workspace;
}

/** The stored session token, if any (storage may be unavailable, e.g. disabled by the user). */
export function storedSession(): string | null {
  try {
    return localStorage.getItem(SESSION_STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Keeps a new session token (after a login code was traded for it). */
export function storeSession(session: string): void {
  localStorage.setItem(SESSION_STORAGE_KEY, session);
}

/** Forgets the stored session and tells the shell, which shows the signed-out page. */
export function dropSession(): void {
  try {
    localStorage.removeItem(SESSION_STORAGE_KEY);
  } catch {
    // nothing stored
  }
  workspace = null;
  for (const listener of signedOutListeners) listener();
}

// The tabs of this emulator share the token: when another tab drops it, this one signs out too.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (
      (event.key === SESSION_STORAGE_KEY || event.key === null) &&
      event.newValue === null &&
      workspace !== null
    ) {
      workspace = null;
      for (const listener of signedOutListeners) listener();
    }
  });
}

/** Calls `listener` whenever the session ends (a 401 of the admin API, or sign-out); returns the unsubscribe. */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => {
    signedOutListeners.delete(listener);
  };
}

function urlFor(target: Target, path: string): string {
  if (target === 'admin') return `/_emulator${path}`;
  if (target === 'api') return `/api${path}`;
  return `${currentWorkspace().messagingUrl.replace(/\/$/, '')}${path}`;
}

function headersFor(target: Target, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // Always JSON: the admin guard refuses the content types a page of another origin could send.
  if (hasBody) headers['content-type'] = 'application/json';
  if (target === 'admin') {
    const session = storedSession();
    if (session) headers[SESSION_HEADER] = session;
  }
  if (target === 'api' && workspace?.token) headers.authorization = `Bearer ${workspace.token}`;
  if (target === 'messaging' && workspace?.apiKey)
    headers.authorization = `Bearer ${workspace.apiKey}`;
  return headers;
}

/** A successful answer: the envelope's data and meta. */
export interface Answer<T> {
  data: T;
  meta?: Record<string, unknown> & { pagination?: Record<string, unknown> };
  status: number;
}

/** One call to an emulator API; resolves with the envelope's data or rejects with an ApiFailure. */
export async function call<T = unknown>(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Answer<T>> {
  const response = await fetch(urlFor(target, path), {
    method,
    headers: headersFor(target, body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
    // No cookie is ever a credential: the session rides in its header.
    credentials: 'omit',
    signal,
  });
  // The admin API refused the session (signed out, or the emulator restarted): back to the signed-out page.
  // (A used login code is a 401 of the sign-in itself, which says nothing about the stored session.)
  // (Another tab of this emulator may have dropped the shared token already: sign this one out too.)
  const signIn = method === 'POST' && path === '/dashboard/session';
  if (target === 'admin' && response.status === 401 && !signIn) dropSession();
  const text = await response.text();
  let parsed: {
    ok?: boolean;
    data?: T;
    meta?: Answer<T>['meta'];
    error?: { error?: string; message?: string; details?: ApiFailure['details'] };
  } = {};
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    // not JSON: reported below from the status
  }
  if (!response.ok || parsed.ok === false) {
    const error = parsed.error ?? {};
    throw new ApiFailure(
      response.status,
      error.error ?? `HTTP_${response.status}`,
      error.message ?? (text || response.statusText),
      error.details ?? [],
    );
  }
  return { data: parsed.data as T, meta: parsed.meta, status: response.status };
}

/**
 * Reads a server-sent-events stream of an emulator API (the delivery stream, a conversation's
 * events) until `signal` aborts or the server ends it, calling `onEvent` for each event.
 */
export async function stream(
  target: Target,
  path: string,
  onEvent: (event: ServerSentEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(urlFor(target, path), {
    headers: { ...headersFor(target, false), accept: 'text/event-stream' },
    credentials: 'omit',
    signal,
  });
  if (target === 'admin' && response.status === 401) dropSession();
  if (!response.ok || !response.body)
    throw new ApiFailure(
      response.status,
      `HTTP_${response.status}`,
      `stream ${path} answered ${response.status}`,
    );
  const parser = new SseParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const event of parser.push(value)) onEvent(event);
    }
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  }
}
