import { useEffect, useState } from 'react';
import {
  call,
  dropSession,
  onSignedOut,
  setWorkspace,
  storeSession,
  storedSession,
  type Workspace,
} from './api.js';
import type { DashboardSession } from '#contract/dashboard';
import { ErrorBox } from './components/error-box.js';
import { ViewBoundary } from './components/view-boundary.js';
import { VIEWS } from './views/index.js';
import { useHashRoute } from './use-hash-route.js';
import { useStoreEpoch } from './use-store-epoch.js';

type Session =
  | { state: 'loading' }
  | { state: 'signed-out'; error?: unknown }
  | { state: 'signed-in'; workspace: Workspace };

/**
 * Establishes the session, then shows the page the hash names. A login link (`#login=<code>`,
 * printed by `plugsmith emulator start` and `plugsmith emulator dashboard`) is exchanged once for a
 * session token and removed from the address bar and history. The token is kept in this origin's
 * localStorage (never a cookie: cookies reach every port of the host) and sent as a header.
 */
async function signIn(): Promise<Workspace | null> {
  const code = /^#login=([A-Za-z0-9_-]+)/.exec(location.hash)?.[1];
  if (code) {
    history.replaceState(null, '', location.pathname + location.search + '#/');
    try {
      const { session, ...workspace } = (
        await call<DashboardSession>('admin', 'POST', '/dashboard/session', { code })
      ).data;
      storeSession(session);
      return workspace;
    } catch (error) {
      // A used link opened again in a browser that is still signed in: the stored session stands.
      if (storedSession() === null) throw error;
      try {
        return (await call<Workspace>('admin', 'GET', '/dashboard/session')).data;
      } catch {
        throw error;
      }
    }
  }
  // No link and no stored session: the signed-out page, with nothing to report.
  if (storedSession() === null) return null;
  return (await call<Workspace>('admin', 'GET', '/dashboard/session')).data;
}

export function App() {
  const [session, setSession] = useState<Session>({ state: 'loading' });
  const route = useHashRoute();
  const store = useStoreEpoch(session.state === 'signed-in');
  // The store generation whose notice was closed: it stays closed until the store changes again.
  const [closedNotice, setClosedNotice] = useState<number | null>(null);
  useEffect(() => {
    const establish = () =>
      signIn().then(
        (workspace) => {
          if (workspace === null) return setSession({ state: 'signed-out' });
          setWorkspace(workspace);
          setSession({ state: 'signed-in', workspace });
        },
        (error) => setSession({ state: 'signed-out', error }),
      );
    void establish();
    // A new login link pasted into this open tab changes only the hash: no page load, so sign in here.
    const onHashChange = () => {
      if (!/^#login=/.test(location.hash)) return;
      setSession({ state: 'loading' });
      void establish();
    };
    addEventListener('hashchange', onHashChange);
    // A 401 of the admin API (the session ended, or the emulator restarted) drops the stored session.
    const unsubscribe = onSignedOut(() => {
      setWorkspace(null);
      setSession({ state: 'signed-out' });
    });
    return () => {
      removeEventListener('hashchange', onHashChange);
      unsubscribe();
    };
  }, []);

  if (session.state === 'loading') return <main className="centered">Loading…</main>;
  if (session.state === 'signed-out') {
    return (
      <main className="centered">
        <h1>plugsmith emulator</h1>
        <p>
          This dashboard needs a login link. Run <code>plugsmith emulator dashboard --open</code>{' '}
          (or open the link that <code>plugsmith emulator start</code> printed; each link works
          once).
        </p>
        <ErrorBox error={session.error} />
      </main>
    );
  }
  // A login link's hash (`#login=…`, replaced once it is used) is the start page, not an unknown one.
  const found =
    route.length === 0 || route[0].startsWith('login=')
      ? VIEWS[0]
      : VIEWS.find((v) => v.path === route[0]);
  const view = found ?? null;
  const View = view?.component;
  return (
    <div className={view?.fill ? 'shell shell-fill' : 'shell'}>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link by convention; following #main would replace the hash route, so the click moves focus itself */}
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header>
        <span className="brand">plugsmith emulator</span>
        <nav aria-label="Dashboard pages">
          {VIEWS.map((v) => (
            <a key={v.path} href={`#/${v.path}`} aria-current={v === view ? 'page' : undefined}>
              {v.label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          className="sign-out"
          onClick={async () => {
            try {
              await call('admin', 'DELETE', '/dashboard/session');
            } finally {
              dropSession();
            }
          }}
        >
          Sign out
        </button>
      </header>
      {!store.reachable && (
        <div className="banner banner-bad" role="alert">
          The emulator cannot be reached: it may have stopped or restarted. This page reconnects by
          itself; start it again with <code>plugsmith emulator start</code>.
        </div>
      )}
      {store.reason && closedNotice !== store.generation && (
        <div className="banner banner-closable" key={store.generation}>
          <span role="status">
            {store.reason === 'restart'
              ? 'The emulator restarted'
              : store.reason === 'import'
                ? 'The emulator imported a store'
                : 'The emulator was reset'}
            : every list was read again.
          </span>
          <button
            type="button"
            className="banner-close"
            aria-label="Close this notice"
            title="Close this notice"
            onClick={() => setClosedNotice(store.generation)}
          >
            ×
          </button>
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {view && View ? (
          // A new store generation (reset, import, restart) mounts the view afresh: it reads everything again.
          <ViewBoundary key={`${view.path}:${store.generation}`} name={`the ${view.label} view`}>
            <View params={route.slice(1)} />
          </ViewBoundary>
        ) : (
          <section aria-labelledby="not-found-title">
            <h1 id="not-found-title">Page not found</h1>
            <p>
              The dashboard has no page <code>#/{route.join('/')}</code>.{' '}
              <a href="#/overview">Go to the start page</a> or pick a page above.
            </p>
          </section>
        )}
      </main>
    </div>
  );
}
