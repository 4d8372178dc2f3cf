import { useCallback, useEffect, useMemo, useState } from 'react';
import { DELIVERY_STATUSES, EVENT_KINDS, HTTP_STATUS_FILTER_PATTERN } from '#contract/enums';
import type { ViewProps } from '../view-props.js';
import { call } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { hashQuery, replaceHashQuery } from '../use-hash-route.js';
import { pluginLabel, usePlugins } from '../use-plugin-names.js';
import { plural } from '../format.js';
import { DeliveriesTable } from './deliveries-table.js';
import { DeliveryDetail } from './deliveries-detail.js';
import {
  filterQuery,
  filtersFromQuery,
  filtersToQuery,
  openDelivery,
  useDeliveryFeed,
  type DeliveryFilters,
} from './deliveries-feed.js';
import './deliveries.css';

/** A value that follows `value` once it has stopped changing for `ms` (typing in a filter box). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** What the delivery log's `@httpStatus` takes (a box that does not match yet does not filter). */
const HTTP_STATUS = new RegExp(HTTP_STATUS_FILTER_PATTERN);

const SINCE_OPTIONS: Array<[string, string]> = [
  ['', 'any time'],
  ['15m', 'last 15 minutes'],
  ['1h', 'last hour'],
  ['24h', 'last 24 hours'],
  ['7d', 'last 7 days'],
];

/**
 * Deliveries, live: every webhook delivery of the emulator, newest first, updated over the
 * delivery stream as attempts end; filters (kept in the URL: reload and share keep them) by plugin,
 * event kind, status, last HTTP status, failed at least once, attempts, time, scenario (part of its name) and text;
 * `#/deliveries/<id>` opens one delivery beside the table.
 */
export function DeliveriesView({ params }: ViewProps) {
  const [draft, setDraft] = useState<DeliveryFilters>(() => filtersFromQuery(hashQuery()));
  const set = (key: keyof DeliveryFilters) => (value: string) =>
    setDraft((d) => ({ ...d, [key]: value }));
  // Typed boxes settle before they query; the rest apply at once.
  const typed = useSettled(
    {
      search: draft.search,
      minAttempts: draft.minAttempts,
      maxAttempts: draft.maxAttempts,
      httpStatus: draft.httpStatus,
      scenario: draft.scenario,
    },
    250,
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: draft and typed are new objects on each render: the filters change only when one of their fields does
  const filters: DeliveryFilters = useMemo(
    () => ({
      ...draft,
      ...typed,
      httpStatus: HTTP_STATUS.test(typed.httpStatus.trim()) ? typed.httpStatus.trim() : '',
    }),
    [
      draft.pluginId,
      draft.type,
      draft.status,
      draft.failedOnce,
      draft.faulted,
      draft.since,
      typed.search,
      typed.minAttempts,
      typed.maxAttempts,
      typed.httpStatus,
      typed.scenario,
    ],
  );
  useEffect(() => replaceHashQuery(filtersToQuery(filters)), [filters]);
  const selected = params[0];
  const feed = useDeliveryFeed(filters, selected);
  const plugins = usePlugins();
  const pluginIds = useMemo(
    () =>
      [
        ...new Set([
          ...plugins.keys(),
          ...feed.rows.slice(0, 2000).map((d) => d.pluginId),
          ...(filters.pluginId ? [filters.pluginId] : []),
        ]),
      ].sort(),
    [feed.rows, plugins, filters.pluginId],
  );
  const live = feed.watched;
  const open = useCallback((id: string) => openDelivery(id), []);
  const filtered = Object.values(filters).some(Boolean);
  const [bulk, setBulk] = useState<
    { state: 'idle' | 'confirm' | 'sending' } | { state: 'done'; count: number }
  >({ state: 'idle' });
  const [bulkError, setBulkError] = useState<unknown>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: new filters cancel a bulk action being confirmed
  useEffect(() => setBulk({ state: 'idle' }), [filters]);
  const resendable = feed.rows.filter((d) => d.type !== 'WEBHOOK_CHALLENGE').length;
  const resendAll = async () => {
    setBulk({ state: 'sending' });
    setBulkError(null);
    try {
      const answer = await call<{ count: number }>(
        'admin',
        'POST',
        `/deliveries/redeliver?${filterQuery(filters)}`,
      );
      setBulk({ state: 'done', count: answer.data.count });
    } catch (e) {
      setBulkError(e);
      setBulk({ state: 'idle' });
    }
  };

  return (
    <div className={`dl-page${selected ? ' dl-with-detail' : ''}`}>
      <div className="dl-list">
        <h1 className="dl-title">
          Deliveries{' '}
          <span className="muted dl-count" aria-live="polite">
            {feed.loading
              ? 'loading…'
              : `${feed.rows.length.toLocaleString('en')}${feed.complete ? '' : '+'} shown`}{' '}
            · {feed.live ? 'live' : 'reconnecting'}
          </span>
        </h1>
        {/* biome-ignore lint/a11y/useSemanticElements: role=search on the <form> keeps its form semantics; <search> would need a form inside */}
        <form
          className="toolbar dl-filters"
          role="search"
          aria-label="Filter deliveries"
          onSubmit={(e) => e.preventDefault()}
        >
          <label>
            Plugin
            <select
              aria-label="Plugin"
              value={draft.pluginId}
              onChange={(e) => set('pluginId')(e.target.value)}
            >
              <option value="">any</option>
              {pluginIds.map((p) => (
                <option key={p} value={p}>
                  {pluginLabel(plugins, p)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Event kind
            <select
              aria-label="Event kind"
              value={draft.type}
              onChange={(e) => set('type')(e.target.value)}
            >
              <option value="">any</option>
              {EVENT_KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select
              aria-label="Status"
              value={draft.status}
              onChange={(e) => set('status')(e.target.value)}
            >
              <option value="">any</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
              <option value="failed,exhausted">failed or exhausted</option>
            </select>
          </label>
          <label>
            Last HTTP status
            <input
              aria-label="Last HTTP status"
              value={draft.httpStatus}
              onChange={(e) => set('httpStatus')(e.target.value)}
              placeholder="500, 5xx, none"
              size={10}
            />
          </label>
          <label>
            Attempts
            <span className="dl-range">
              <input
                aria-label="At least attempts"
                type="number"
                min={0}
                value={draft.minAttempts}
                onChange={(e) => set('minAttempts')(e.target.value)}
                placeholder="min"
              />
              <input
                aria-label="At most attempts"
                type="number"
                min={0}
                value={draft.maxAttempts}
                onChange={(e) => set('maxAttempts')(e.target.value)}
                placeholder="max"
              />
            </span>
          </label>
          <label>
            Time
            <select
              aria-label="Time"
              value={draft.since}
              onChange={(e) => set('since')(e.target.value)}
            >
              {SINCE_OPTIONS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
              {draft.since && !SINCE_OPTIONS.some(([v]) => v === draft.since) && (
                <option value={draft.since}>since {draft.since}</option>
              )}
            </select>
          </label>
          <label className="dl-check">
            <input
              type="checkbox"
              checked={draft.failedOnce === 'true'}
              onChange={(e) => set('failedOnce')(e.target.checked ? 'true' : '')}
            />
            Failed at least once
          </label>
          <label className="dl-check">
            <input
              type="checkbox"
              checked={draft.faulted === 'true'}
              onChange={(e) => set('faulted')(e.target.checked ? 'true' : '')}
            />
            Faults injected
          </label>
          <label>
            Scenario
            <input
              aria-label="Scenario"
              type="text"
              value={draft.scenario}
              onChange={(e) => set('scenario')(e.target.value)}
              placeholder="part of its name"
            />
          </label>
          <label>
            Search
            <input
              aria-label="Search"
              type="search"
              value={draft.search}
              onChange={(e) => set('search')(e.target.value)}
              placeholder="id, event id, URL…"
            />
          </label>
          {filtered && (
            <button type="button" onClick={() => setDraft(filtersFromQuery(new URLSearchParams()))}>
              Clear filters
            </button>
          )}
        </form>
        {filtered && feed.complete && resendable > 0 && (
          // biome-ignore lint/a11y/useSemanticElements: a named group of buttons, not a <fieldset> of form fields
          <div className="toolbar" aria-label="Bulk actions" role="group">
            {bulk.state === 'idle' && (
              <button type="button" onClick={() => setBulk({ state: 'confirm' })}>
                Resend {plural(resendable, 'delivery', 'deliveries')} shown…
              </button>
            )}
            {bulk.state === 'confirm' && (
              <>
                <span>
                  Send the events of these {plural(resendable, 'delivery', 'deliveries')} again,
                  each as a new delivery
                  {feed.rows.length > resendable ? ' (challenges are never resent)' : ''}?
                </span>
                <button type="button" className="primary" onClick={resendAll}>
                  Confirm: resend {plural(resendable, 'delivery', 'deliveries')}
                </button>
                <button type="button" onClick={() => setBulk({ state: 'idle' })}>
                  Cancel
                </button>
              </>
            )}
            {bulk.state === 'sending' && <span className="muted">Resending…</span>}
            {bulk.state === 'done' && (
              <span role="status" className="status-ok-text">
                Resent {plural(bulk.count, 'delivery', 'deliveries')}: the new ones appear in the
                list as they are sent.
              </span>
            )}
          </div>
        )}
        <ErrorBox error={bulkError} />
        <ErrorBox error={feed.error} />
        {!feed.loading && feed.rows.length === 0 && !feed.error && (
          <p className="muted">
            {filtered ? (
              <>
                No deliveries match these filters.{' '}
                <button
                  type="button"
                  className="link"
                  onClick={() => setDraft(filtersFromQuery(new URLSearchParams()))}
                >
                  Show all deliveries
                </button>
              </>
            ) : (
              <>
                No deliveries yet: every event the emulator sends to a plugin's webhook shows here.{' '}
                <a href="#/install">Verify a plugin's webhook and install it</a>, send an event from{' '}
                <a href="#/trigger">Trigger</a>, or run{' '}
                <code>plugsmith trigger AGENT_MESSAGE_RECEIVED --plugin &lt;pluginId&gt;</code>.
              </>
            )}
          </p>
        )}
        <DeliveriesTable rows={feed.rows} selected={selected} onOpen={open} plugins={plugins} />
      </div>
      {selected && (
        <DeliveryDetail
          key={selected}
          deliveryId={selected}
          live={live}
          onResent={feed.upsert}
          plugins={plugins}
        />
      )}
    </div>
  );
}
