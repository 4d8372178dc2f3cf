import { useCallback, useEffect, useMemo, useState } from 'react';
import { DELIVERY_STATUSES, EVENT_KINDS } from '../../../../src/contract/enums.js';
import type { ViewProps } from '../view-props.js';
import { ErrorBox } from '../components/error-box.js';
import { navigate } from '../use-hash-route.js';
import { DeliveriesTable } from './deliveries-table.js';
import { DeliveryDetail } from './deliveries-detail.js';
import { useDeliveryFeed, type DeliveryFilters } from './deliveries-feed.js';
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

/**
 * Deliveries, live: every webhook delivery of the emulator, newest first, updated over the
 * delivery stream as attempts end; filters by plugin, event type, status and text; `#/deliveries/<id>`
 * opens one delivery beside the table.
 */
export function DeliveriesView({ params }: ViewProps) {
  const [pluginId, setPluginId] = useState('');
  const [type, setType] = useState('');
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const typed = useSettled({ pluginId: pluginId.trim(), search }, 250);
  const filters: DeliveryFilters = useMemo(() => ({ pluginId: typed.pluginId, type, status, search: typed.search }), [typed.pluginId, typed.search, type, status]);
  const feed = useDeliveryFeed(filters);
  const selected = params[0];
  const plugins = useMemo(() => [...new Set(feed.rows.slice(0, 2000).map((d) => d.pluginId))].sort(), [feed.rows]);
  const live = selected ? feed.rows.find((d) => d.id === selected) : undefined;
  const open = useCallback((id: string) => navigate('deliveries', id), []);

  return (
    <div className={`dl-page${selected ? ' dl-with-detail' : ''}`}>
      <div className="dl-list">
        <h1 className="dl-title">
          Deliveries{' '}
          <span className="muted dl-count" aria-live="polite">
            {feed.loading ? 'loading…' : `${feed.rows.length}${feed.complete ? '' : '+'} shown`} · {feed.live ? 'live' : 'reconnecting'}
          </span>
        </h1>
        <form className="toolbar" role="search" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
          <label>
            Plugin
            <input aria-label="Plugin" value={pluginId} onChange={(e) => setPluginId(e.target.value)} list="dl-plugins" placeholder="any plugin id" />
            <datalist id="dl-plugins">
              {plugins.map((p) => (
                <option key={p} value={p} />
              ))}
            </datalist>
          </label>
          <label>
            Event type
            <select aria-label="Event type" value={type} onChange={(e) => setType(e.target.value)}>
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
            <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
              <option value="">any</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Search
            <input aria-label="Search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="id, event id, URL…" />
          </label>
        </form>
        <ErrorBox error={feed.error} />
        {!feed.loading && feed.rows.length === 0 && !feed.error && <p className="muted">No deliveries{Object.values(filters).some(Boolean) ? ' match these filters' : ' yet: trigger an event or install a plugin'}.</p>}
        <DeliveriesTable rows={feed.rows} selected={selected} onOpen={open} />
      </div>
      {selected && <DeliveryDetail deliveryId={selected} live={live} onResent={feed.upsert} />}
    </div>
  );
}
