import { useEffect, useState } from 'react';
import { call } from '../api.js';
import { isolated, plural } from '../format.js';
import type { PluginInstance } from '#contract/resources';

/** An app of the org, known by the plugins installed on it. */
interface KnownApp {
  id: string;
  installs: string[];
}

/** The id plugsmith's project templates install APP plugins on (`plugsmith apps add app_local`): a new app gets it when it is free. */
const SUGGESTED_APP_ID = 'app_local';
const NEW = '\u0000new';
const OTHER = '\u0000other';

/** The first of app_local, app_local_2, … that names no known app. */
function newAppId(known: KnownApp[]): string {
  const taken = new Set(known.map((a) => a.id));
  for (let n = 1; ; n++) {
    const id = n === 1 ? SUGGESTED_APP_ID : `${SUGGESTED_APP_ID}_${n}`;
    if (!taken.has(id)) return id;
  }
}

/**
 * The app an APP plugin installs on, picked rather than typed. The platform's apps have no
 * endpoint of their own (the spec shows none, so the emulator stores none): the org's apps are
 * the ones its APP instances are on, listed with what is installed there; a new app is offered
 * under a free id; any other id may still be typed. Reports the chosen id ('' while none).
 */
export function AppPicker({
  orgId,
  refresh,
  onChange,
}: {
  orgId: string;
  refresh: unknown;
  onChange: (appId: string) => void;
}) {
  const [known, setKnown] = useState<KnownApp[] | null>(null);
  const [choice, setChoice] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refresh is the parent's signal to fetch the apps again
  useEffect(() => {
    const controller = new AbortController();
    call<PluginInstance[]>(
      'admin',
      'GET',
      `/instances?orgId=${encodeURIComponent(orgId)}&entityType=APP&@sortBy=createdAt&@sortOrder=asc&@limit=100`,
      undefined,
      controller.signal,
    ).then(
      (answer) => {
        const apps = new Map<string, string[]>();
        for (const instance of answer.data)
          apps.set(instance.entityId, [...(apps.get(instance.entityId) ?? []), instance.name]);
        setKnown(
          [...apps]
            .map(([id, installs]) => ({ id, installs }))
            .sort((a, b) => a.id.localeCompare(b.id)),
        );
        setError(null);
      },
      (failure) => {
        if (controller.signal.aborted) return;
        // The picker still offers a new app and a typed id.
        setKnown([]);
        setError(`the org's apps could not be listed (${(failure as Error).message})`);
      },
    );
    return () => controller.abort();
  }, [orgId, refresh]);

  const fresh = newAppId(known ?? []);
  // A new app is remembered by its id: once something is installed on it, it is a known app, still chosen.
  // Until the person picks, the first known app (or a new one) is the choice.
  const current =
    choice === OTHER
      ? OTHER
      : choice !== null && known?.some((a) => a.id === choice)
        ? choice
        : choice === fresh
          ? NEW
          : (known?.[0]?.id ?? NEW);
  const appId = current === NEW ? fresh : current === OTHER ? typed.trim() : current;
  useEffect(() => {
    onChange(known === null ? '' : appId);
  }, [appId, known, onChange]);

  if (known === null) return <span className="muted">Finding the org's apps…</span>;
  return (
    <>
      <label>
        App
        <select
          value={current}
          onChange={(e) => setChoice(e.target.value === NEW ? fresh : e.target.value)}
        >
          {known.map((app) => (
            <option key={app.id} value={app.id}>
              {app.id}: {plural(app.installs.length, 'plugin')} (
              {app.installs.map(isolated).join(', ')})
            </option>
          ))}
          <option value={NEW}>{fresh}: a new app</option>
          <option value={OTHER}>another app id…</option>
        </select>
      </label>
      {current === OTHER && (
        <label>
          App id
          <input
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            placeholder="app_crm"
            // biome-ignore lint/a11y/noAutofocus: the field appears because the user chose "another app id" just now; typing goes there next
            autoFocus
          />
        </label>
      )}
      {error && <span className="muted">{error}</span>}
    </>
  );
}
