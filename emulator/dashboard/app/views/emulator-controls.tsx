import { useEffect, useRef, useState } from 'react';
import type { EmulatorExport, FaultSettings } from '#contract';
import { call } from '../api.js';
import { ErrorBox } from '../components/error-box.js';

/** Fault injection on and off, with its profile and seed (GET and PUT /_emulator/faults). */
function Faults() {
  const [settings, setSettings] = useState<FaultSettings | null>(null);
  const [profile, setProfile] = useState('');
  const [seed, setSeed] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    call<FaultSettings>('admin', 'GET', '/faults').then((a) => {
      setSettings(a.data);
      // Fill the fields only where nothing was typed yet: an answer that comes late must not overwrite the user's text.
      const suggested = a.data.on ? a.data.profile : 'duplicate=0.1,delay=100-500ms,drop=0.05';
      setProfile((typed) => (typed === '' ? suggested : typed));
      setSeed((typed) => (typed === '' ? a.data.seed : typed));
    }, setError);
  }, []);
  const apply = async (next: string) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await call<FaultSettings>('admin', 'PUT', '/faults', {
        profile: next,
        ...(seed.trim() && next !== 'off' ? { seed: seed.trim() } : {}),
      });
      setSettings(answer.data);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel" aria-labelledby="controls-faults">
      <h2 id="controls-faults">Fault injection</h2>
      <p role="status">
        {settings === null ? (
          'Loading…'
        ) : settings.on ? (
          <>
            <strong className="status-warn">On</strong>: <code>{settings.profile}</code>, seed{' '}
            <code>{settings.seed}</code>
          </>
        ) : (
          <>Off: every delivery is sent as asked.</>
        )}
      </p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void apply(profile.trim());
        }}
      >
        <label>
          Profile
          <input
            aria-label="Fault profile"
            value={profile}
            onChange={(e) => setProfile(e.target.value)}
            size={36}
            placeholder="duplicate=0.2,delay=100-500ms,drop=0.1"
          />
        </label>
        <label>
          Seed
          <input
            aria-label="Fault seed"
            value={seed}
            onChange={(e) => setSeed(e.target.value)}
            size={12}
          />
        </label>
        <button type="submit" className="primary" disabled={busy || !profile.trim()}>
          {settings?.on ? 'Apply faults' : 'Turn faults on'}
        </button>
        <button type="button" disabled={busy || !settings?.on} onClick={() => apply('off')}>
          Turn faults off
        </button>
      </form>
      <ErrorBox error={error} />
    </section>
  );
}

/** A picked store file, read and counted, waiting for the person's confirmation. */
interface PendingImport {
  name: string;
  /** What POST /_emulator/import is sent. */
  body: unknown;
  /** Records per collection: in the file, and in the store now. */
  inFile: Record<string, number>;
  now: Record<string, number>;
}

/** The records of each collection of an export. */
function countsOf(collections: unknown): Record<string, number> {
  const counts: Record<string, number> = {};
  if (typeof collections !== 'object' || collections === null) return counts;
  for (const [name, records] of Object.entries(collections)) {
    counts[name] = Array.isArray(records) ? records.length : 0;
  }
  return counts;
}

/** Parses a picked file and counts what it holds against what the store holds now (read with GET /export). */
async function readImport(chosen: File): Promise<PendingImport> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await chosen.text());
  } catch {
    throw new Error(
      `${chosen.name} is not JSON: choose a file that plugsmith emulator export (or Export here) wrote`,
    );
  }
  // `plugsmith emulator export` writes the export itself; the admin API's answer wraps it in { ok, data }.
  const wrapped = parsed as { ok?: unknown; data?: unknown };
  const body = wrapped.data && wrapped.ok === true ? wrapped.data : parsed;
  const collections = (body as { collections?: unknown } | null)?.collections;
  if (typeof collections !== 'object' || collections === null) {
    throw new Error(
      `${chosen.name} holds no "collections": choose a file that plugsmith emulator export (or Export here) wrote`,
    );
  }
  const current = await call<EmulatorExport>('admin', 'GET', '/export');
  return {
    name: chosen.name,
    body,
    inFile: countsOf(collections),
    now: countsOf(current.data.collections),
  };
}

/** What an import would replace, collection by collection, and the typed confirmation it needs. */
function ImportConfirmation(props: {
  pending: PendingImport;
  typed: string;
  busy: boolean;
  onType: (value: string) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { pending, typed, busy } = props;
  const names = [...new Set([...Object.keys(pending.now), ...Object.keys(pending.inFile)])].sort();
  const changed = names.filter((n) => (pending.now[n] ?? 0) > 0 || (pending.inFile[n] ?? 0) > 0);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <form
      className="import-confirm"
      aria-labelledby="controls-import-confirm"
      onSubmit={(e) => {
        e.preventDefault();
        if (typed === 'import') props.onConfirm();
      }}
    >
      <h3 id="controls-import-confirm" tabIndex={-1} ref={heading}>
        Replace the store with <bdi>{pending.name}</bdi>?
      </h3>
      <p>
        Every record of the store goes and the file's records take their place. Nothing has changed
        yet.
      </p>
      <table className="import-counts">
        <caption className="visually-hidden">Records per collection</caption>
        <thead>
          <tr>
            <th scope="col">Collection</th>
            <th scope="col">Now</th>
            <th scope="col">In the file</th>
          </tr>
        </thead>
        <tbody>
          {changed.map((n) => (
            <tr key={n}>
              <th scope="row">
                <bdi>{n}</bdi>
              </th>
              <td>{pending.now[n] ?? 0}</td>
              <td>{pending.inFile[n] ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="toolbar">
        <label>
          Type <code>import</code> to replace the store
          <input
            aria-label="Type import to confirm"
            value={typed}
            onChange={(e) => props.onType(e.target.value)}
            autoComplete="off"
          />
        </label>
        <button type="submit" className="danger" disabled={busy || typed !== 'import'}>
          Replace the store
        </button>
        <button type="button" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Export, import and reset of the whole store (GET /export, POST /import, POST /reset). */
function Store() {
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<PendingImport | null>(null);
  const [typedImport, setTypedImport] = useState('');
  const file = useRef<HTMLInputElement>(null);
  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const said = await what();
      setNotice(said === '' ? null : said);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const exportStore = () =>
    run(async () => {
      const answer = await call<EmulatorExport>('admin', 'GET', '/export');
      const blob = new Blob([JSON.stringify(answer.data, null, 2)], { type: 'application/json' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `plugsmith-emulator-${(answer.data.exportedAt ?? new Date().toISOString()).replace(/[:.]/g, '-')}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      return 'Exported: the file holds webhook secrets and installation tokens; keep it private.';
    });
  /** Reads a picked file and asks before anything is replaced: nothing is sent until the person confirms. */
  const prepareImport = (chosen: File) =>
    run(async () => {
      setPending(await readImport(chosen));
      setTypedImport('');
      return '';
    });
  const importStore = (chosen: PendingImport) =>
    run(async () => {
      await call('admin', 'POST', '/import', chosen.body);
      setPending(null);
      setTypedImport('');
      return `Imported ${chosen.name}: every view reads the new store.`;
    });
  const reset = () =>
    run(async () => {
      await call('admin', 'POST', '/reset');
      setTyped('');
      return 'Reset: the store holds the seed again.';
    });
  return (
    <section className="panel" aria-labelledby="controls-store">
      <h2 id="controls-store">Store</h2>
      <div className="toolbar">
        <button type="button" onClick={exportStore} disabled={busy}>
          Export store
        </button>
        <label className="button-like">
          Import a store…
          <input
            ref={file}
            type="file"
            accept="application/json,.json"
            aria-label="Import a store from a file"
            className="visually-hidden"
            onChange={(e) => {
              const chosen = e.target.files?.[0];
              if (chosen) void prepareImport(chosen);
              e.target.value = '';
            }}
          />
        </label>
      </div>
      {pending && (
        <ImportConfirmation
          pending={pending}
          typed={typedImport}
          busy={busy}
          onType={setTypedImport}
          onConfirm={() => void importStore(pending)}
          onCancel={() => {
            setPending(null);
            setTypedImport('');
            setNotice('Import cancelled: the store is unchanged.');
          }}
        />
      )}
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed === 'reset') void reset();
        }}
      >
        <label>
          Type <code>reset</code> to empty the store (every plugin, instance, delivery and upload
          record goes; the seed comes back)
          <input
            aria-label="Type reset to confirm"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            autoComplete="off"
          />
        </label>
        <button type="submit" className="danger" disabled={busy || typed !== 'reset'}>
          Reset the emulator
        </button>
      </form>
      {notice && (
        <p className="muted notice-closable">
          <span role="status">{notice}</span>
          <button
            type="button"
            className="banner-close"
            aria-label="Close this notice"
            title="Close this notice"
            onClick={() => setNotice(null)}
          >
            ×
          </button>
        </p>
      )}
      <ErrorBox error={error} />
    </section>
  );
}

/** The emulator driven from the page: store export, import and reset, fault injection. */
export function EmulatorControls() {
  return (
    <>
      <Store />
      <Faults />
    </>
  );
}
