import { useEffect, useState } from 'react';
import { call, setWorkspace, type Workspace } from './api.js';
import { ErrorBox } from './components/error-box.js';
import { VIEWS } from './views/index.js';
import { useHashRoute } from './use-hash-route.js';

type Session = { state: 'loading' } | { state: 'signed-out'; error?: unknown } | { state: 'signed-in'; workspace: Workspace };

/**
 * Establishes the session, then shows the page the hash names. A login link (`#login=<code>`,
 * printed by `plugsmith emulator start` and `plugsmith emulator dashboard`) is exchanged once for an
 * HttpOnly session cookie and removed from the address bar and history.
 */
async function signIn(): Promise<Workspace> {
  const code = /^#login=([A-Za-z0-9_-]+)/.exec(location.hash)?.[1];
  if (code) {
    history.replaceState(null, '', location.pathname + location.search + '#/');
    try {
      return (await call<Workspace>('admin', 'POST', '/dashboard/session', { code })).data;
    } catch (error) {
      // A used link opened again in a browser that is still signed in: the session stands.
      try {
        return (await call<Workspace>('admin', 'GET', '/dashboard/session')).data;
      } catch {
        throw error;
      }
    }
  }
  return (await call<Workspace>('admin', 'GET', '/dashboard/session')).data;
}

export function App() {
  const [session, setSession] = useState<Session>({ state: 'loading' });
  const route = useHashRoute();
  useEffect(() => {
    signIn().then(
      (workspace) => {
        setWorkspace(workspace);
        setSession({ state: 'signed-in', workspace });
      },
      (error) => setSession({ state: 'signed-out', error }),
    );
  }, []);

  if (session.state === 'loading') return <main className="centered">Loading…</main>;
  if (session.state === 'signed-out') {
    return (
      <main className="centered">
        <h1>plugsmith emulator</h1>
        <p>
          This dashboard needs a login link. Run <code>plugsmith emulator dashboard --open</code> (or open the link that{' '}
          <code>plugsmith emulator start</code> printed; each link works once).
        </p>
        <ErrorBox error={session.error} />
      </main>
    );
  }
  const view = VIEWS.find((v) => v.path === route[0]) ?? VIEWS[0];
  const View = view.component;
  return (
    <div className="shell">
      <header>
        <span className="brand">plugsmith emulator</span>
        <nav aria-label="Dashboard pages">
          {VIEWS.map((v) => (
            <a key={v.path} href={`#/${v.path}`} aria-current={v === view ? 'page' : undefined}>
              {v.label}
            </a>
          ))}
        </nav>
      </header>
      <main>
        <View key={view.path} params={route.slice(1)} />
      </main>
    </div>
  );
}
