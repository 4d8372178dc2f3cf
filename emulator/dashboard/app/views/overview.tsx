import { useEffect, useState } from 'react';
import type { Overview } from '#contract/dashboard';
import { call, currentWorkspace } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorBox } from '../components/error-box.js';
import type { ViewProps } from '../view-props.js';
import { EmulatorControls } from './emulator-controls.js';
import './overview.css';

/** How often the Overview asks again (uptime, counts and the queue move while it is open). */
const REFRESH_MS = 3000;

/** Collections in the order a plugin author thinks of them, with their labels. */
const COLLECTION_LABELS: Array<[keyof Overview['counts'], string]> = [
  ['plugins', 'Plugins'],
  ['actions', 'Actions'],
  ['externalEvents', 'External events'],
  ['instances', 'Instances'],
  ['deliveries', 'Deliveries'],
  ['repositories', 'Repositories'],
  ['repositoryFiles', 'Repository files'],
  ['files', 'Uploads'],
  ['agents', 'Agents'],
  ['characters', 'Characters'],
  ['conversations', 'Conversations'],
  ['messages', 'Messages'],
  ['users', 'Users'],
  ['orgs', 'Orgs'],
  ['memberships', 'Memberships'],
  ['tokens', 'Tokens'],
  ['apiKeys', 'API keys'],
];

/** "3 h 4 min", "12 s": uptime as a person reads it. */
export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}

/** A secret shown masked until asked, with a copy button that copies it either way. */
function Secret({ label, value }: { label: string; value: string | null }) {
  const [shown, setShown] = useState(false);
  if (value === null) return <span className="muted">none</span>;
  const masked = value.length > 8 ? `${value.slice(0, 4)}${'•'.repeat(12)}` : '•'.repeat(12);
  return (
    <span className="secret">
      <code role="status" aria-label={label}>
        {shown ? value : masked}
      </code>
      <button
        type="button"
        aria-label={`${shown ? 'Hide' : 'Reveal'} ${label}`}
        onClick={() => setShown(!shown)}
      >
        {shown ? 'Hide' : 'Reveal'}
      </button>
      <CopyButton text={value} label={`Copy ${label}`} />
    </span>
  );
}

/** A URL with a copy button. */
function Url({ label, value }: { label: string; value: string }) {
  return (
    <span className="secret">
      <code role="status" aria-label={label}>
        {value}
      </code>
      <CopyButton text={value} label={`Copy ${label}`} />
    </span>
  );
}

/** The Overview: where the emulator runs, its credentials, store, uptime, record counts, delivery queue and backends. */
export function OverviewView(_props: ViewProps) {
  const [overview, setOverview] = useState<Overview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const workspace = currentWorkspace();

  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const { data } = await call<Overview>('admin', 'GET', '/overview', undefined, abort.signal);
        setOverview(data);
        setError(null);
      } catch (failure) {
        if (abort.signal.aborted) return;
        setError(failure);
      }
      if (!abort.signal.aborted) timer = setTimeout(load, REFRESH_MS);
    };
    void load();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, []);

  return (
    <section aria-labelledby="overview-title" className="overview">
      <h1 id="overview-title">Overview</h1>
      <ErrorBox error={error} />
      <div className="overview-grid">
        <section className="panel" aria-labelledby="overview-connect">
          <h2 id="overview-connect">Connect</h2>
          <dl>
            <dt>Management API</dt>
            <dd>
              <Url
                label="Management API URL"
                value={overview?.managementUrl ?? workspace.managementUrl}
              />
            </dd>
            <dt>Messaging API</dt>
            <dd>
              <Url
                label="Messaging API URL"
                value={overview?.messagingUrl ?? workspace.messagingUrl}
              />
            </dd>
            <dt>Token</dt>
            <dd>
              <Secret label="token" value={workspace.token} />
            </dd>
            <dt>API key</dt>
            <dd>
              <Secret label="API key" value={workspace.apiKey} />
            </dd>
            <dt>Org</dt>
            <dd>
              <code>{workspace.orgId ?? '—'}</code>
            </dd>
          </dl>
        </section>
        <section className="panel" aria-labelledby="overview-runtime">
          <h2 id="overview-runtime">Emulator</h2>
          <dl>
            <dt>Data</dt>
            <dd>
              {overview ? (
                overview.dataDir === null ? (
                  'in memory'
                ) : (
                  <code>{overview.dataDir}</code>
                )
              ) : (
                '…'
              )}
            </dd>
            <dt>Store id</dt>
            <dd>
              <code>{overview?.storeId ?? workspace.storeId}</code>
            </dd>
            <dt>Uptime</dt>
            <dd>{overview ? formatUptime(overview.uptimeSeconds) : '…'}</dd>
            <dt>Storage</dt>
            <dd>
              {overview === null ? (
                '…'
              ) : overview.storage.backend === 'embedded' ? (
                'embedded (served under /_storage)'
              ) : (
                <>
                  S3 <code>{overview.storage.endpoint}</code> bucket{' '}
                  <code>{overview.storage.bucket}</code>
                </>
              )}
            </dd>
            <dt>LLM</dt>
            <dd>
              {overview === null ? (
                '…'
              ) : overview.llm === null ? (
                <span className="muted">none (scripted characters only)</span>
              ) : (
                <>
                  <code>{overview.llm.model}</code> at <code>{overview.llm.baseUrl}</code>
                  {overview.llm.hasApiKey ? ' (with an API key)' : ''}
                </>
              )}
            </dd>
          </dl>
        </section>
        <section className="panel" aria-labelledby="overview-queue">
          <h2 id="overview-queue">Delivery queue</h2>
          <table aria-labelledby="overview-queue">
            <thead>
              <tr>
                <th scope="col">Pending</th>
                <th scope="col">Retrying</th>
                <th scope="col">Failed</th>
                <th scope="col">Delivered</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                {/* Each counter opens the Deliveries it counts (the filters are the list's URL). */}
                <td>
                  <a
                    href="#/deliveries?status=pending&maxAttempts=0"
                    aria-label={`Pending: ${overview?.deliveryQueue.pending ?? '…'}, show them`}
                  >
                    {overview?.deliveryQueue.pending ?? '…'}
                  </a>
                </td>
                <td
                  className={
                    overview && overview.deliveryQueue.retrying > 0 ? 'status-warn' : undefined
                  }
                >
                  <a
                    className="inherit"
                    href="#/deliveries?status=pending&minAttempts=1"
                    aria-label={`Retrying: ${overview?.deliveryQueue.retrying ?? '…'}, show them`}
                  >
                    {overview?.deliveryQueue.retrying ?? '…'}
                  </a>
                </td>
                <td
                  className={
                    overview && overview.deliveryQueue.failed > 0 ? 'status-bad' : undefined
                  }
                >
                  <a
                    className="inherit"
                    href="#/deliveries?status=failed%2Cexhausted"
                    aria-label={`Failed: ${overview?.deliveryQueue.failed ?? '…'}, show them`}
                  >
                    {overview?.deliveryQueue.failed ?? '…'}
                  </a>
                </td>
                <td
                  className={
                    overview && overview.deliveryQueue.delivered > 0 ? 'status-ok' : undefined
                  }
                >
                  <a
                    className="inherit"
                    href="#/deliveries?status=delivered"
                    aria-label={`Delivered: ${overview?.deliveryQueue.delivered ?? '…'}, show them`}
                  >
                    {overview?.deliveryQueue.delivered ?? '…'}
                  </a>
                </td>
              </tr>
            </tbody>
          </table>
        </section>
        <section className="panel" aria-labelledby="overview-counts">
          <h2 id="overview-counts">Records</h2>
          <table aria-labelledby="overview-counts">
            <thead>
              <tr>
                <th scope="col">Collection</th>
                <th scope="col">Records</th>
              </tr>
            </thead>
            <tbody>
              {COLLECTION_LABELS.map(([name, label]) => (
                <tr key={name}>
                  <th scope="row">{label}</th>
                  <td>{overview?.counts[name] ?? '…'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <EmulatorControls />
      </div>
    </section>
  );
}
