import { hashQuery } from '../use-hash-route.js';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Delivery, DeliveryAttemptNotice } from '#contract';
import { call, stream } from '../api.js';

/** What the Deliveries table shows: each filter empty when unset. The names are the URL's (`#/deliveries?status=failed`). */
export interface DeliveryFilters {
  pluginId: string;
  type: string;
  /** One status or several, comma-separated (failed,exhausted). */
  status: string;
  search: string;
  /** 'true': only deliveries with at least one failed attempt. */
  failedOnce: string;
  /** 'true': only deliveries into which fault injection put a fault. */
  faulted: string;
  /** The last answer: 500, 5xx or none, comma-separated. */
  httpStatus: string;
  minAttempts: string;
  maxAttempts: string;
  /** A time (ISO 8601) or a span back from now: 15m, 1h, 24h, 7d. */
  since: string;
  /** Part of the name of the scenario the delivery was emitted under (plugsmith scenario run), in any case. */
  scenario: string;
}

export const FILTER_KEYS = [
  'pluginId',
  'type',
  'status',
  'search',
  'failedOnce',
  'faulted',
  'httpStatus',
  'minAttempts',
  'maxAttempts',
  'since',
  'scenario',
] as const;

/** Filters as the URL's query holds them. */
export function filtersFromQuery(query: URLSearchParams): DeliveryFilters {
  const value = (key: (typeof FILTER_KEYS)[number]) => query.get(key) ?? '';
  return {
    pluginId: value('pluginId'),
    type: value('type'),
    status: value('status'),
    search: value('search'),
    failedOnce: value('failedOnce'),
    faulted: value('faulted'),
    httpStatus: value('httpStatus'),
    minAttempts: value('minAttempts'),
    maxAttempts: value('maxAttempts'),
    since: value('since'),
    scenario: value('scenario'),
  };
}

/** Filters as a URL query (only the set ones). */
export function filtersToQuery(filters: DeliveryFilters): URLSearchParams {
  const query = new URLSearchParams();
  for (const k of FILTER_KEYS) if (filters[k].trim()) query.set(k, filters[k].trim());
  return query;
}

const SPANS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The ISO time a `since` filter names (a span back from now, or a time), or null when it is not one. */
export function sinceTime(since: string, now = Date.now()): string | null {
  const span = /^(\d{1,4})([mhd])$/.exec(since.trim());
  if (span) return new Date(now - Number(span[1]) * SPANS[span[2]]).toISOString();
  const at = Date.parse(since);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

function answered2xx(status: number | null, error: string | null): boolean {
  return status !== null && status >= 200 && status <= 299 && error === null;
}

/** Whether a delivery belongs in the table under these filters (the stream is filtered by plugin and type only). */
export function matchesFilters(
  delivery: Delivery,
  filters: DeliveryFilters,
  since: string | null = filters.since ? sinceTime(filters.since) : null,
): boolean {
  if (filters.pluginId && delivery.pluginId !== filters.pluginId) return false;
  if (filters.type && delivery.type !== filters.type) return false;
  if (filters.status && !filters.status.split(',').includes(delivery.status)) return false;
  if (
    filters.failedOnce === 'true' &&
    !delivery.attempts.some((a) => !answered2xx(a.responseStatus, a.error))
  )
    return false;
  if (filters.faulted === 'true' && (delivery.faults?.length ?? 0) === 0) return false;
  if (filters.httpStatus) {
    const last = delivery.attempts.at(-1);
    if (!last) return false;
    const wanted = filters.httpStatus.split(',');
    const code = last.responseStatus === null ? 'none' : String(last.responseStatus);
    if (!wanted.includes(code) && !wanted.includes(`${code[0]}xx`)) return false;
  }
  if (filters.minAttempts && delivery.attempts.length < Number(filters.minAttempts)) return false;
  if (filters.maxAttempts && delivery.attempts.length > Number(filters.maxAttempts)) return false;
  if (since && delivery.createdAt < since) return false;
  const scenarioPart = filters.scenario.trim().toLowerCase();
  if (scenarioPart && !delivery.scenario?.toLowerCase().includes(scenarioPart)) return false;
  const needle = filters.search.trim().toLowerCase();
  if (!needle) return true;
  // The same fields the admin API's @search looks into.
  return [
    delivery.id,
    delivery.type,
    delivery.eventId,
    delivery.url,
    delivery.pluginId,
    delivery.pluginInstanceId,
  ].some((v) => typeof v === 'string' && v.toLowerCase().includes(needle));
}

/** The admin API's query for these filters (no paging). */
export function filterQuery(filters: DeliveryFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.pluginId) query.set('pluginId', filters.pluginId);
  if (filters.type) query.set('type', filters.type);
  if (filters.status) query.set('status', filters.status);
  if (filters.search.trim()) query.set('@search', filters.search.trim());
  if (filters.failedOnce === 'true') query.set('@failedOnce', 'true');
  if (filters.faulted === 'true') query.set('@faulted', 'true');
  if (filters.httpStatus) query.set('@httpStatus', filters.httpStatus);
  if (filters.minAttempts) query.set('@minAttempts', filters.minAttempts);
  if (filters.maxAttempts) query.set('@maxAttempts', filters.maxAttempts);
  const since = filters.since ? sinceTime(filters.since) : null;
  if (since) query.set('@since', since);
  // Part of a name, as the box says; the API's `scenario` would take whole names only.
  if (filters.scenario.trim()) query.set('@scenarioContains', filters.scenario.trim());
  return query;
}

/** The log as the table holds it, newest first, kept current by the delivery stream. */
export interface DeliveryFeed {
  rows: Delivery[];
  /** True until the first page has come. */
  loading: boolean;
  /** True once every page of the log (up to MAX_ROWS) is in. */
  complete: boolean;
  /** True while the live stream is connected. */
  live: boolean;
  error: unknown;
  /** Puts a delivery in the table at once (a resend's answer), before its stream event. */
  upsert(delivery: Delivery): void;
  /** The newest copy of the watched delivery (the open one), even when the filters leave it out of the table. */
  watched: Delivery | undefined;
}

const PAGE = 100;
/** Most deliveries held in the page: the log itself keeps 10,000 by default. */
const MAX_ROWS = 50_000;
const RECONNECT_MS = 1000;

function listPath(filters: DeliveryFilters, cursor: string): string {
  const query = filterQuery(filters);
  for (const [k, v] of Object.entries({
    '@sortBy': 'createdAt',
    '@sortOrder': 'desc',
    '@limit': String(PAGE),
    '@cursor': cursor,
  }))
    query.set(k, v);
  return `/deliveries?${query}`;
}

/**
 * Loads the delivery log page by page (the query system's cursor paging, newest first) and follows
 * the delivery stream: a new delivery goes on top, a new attempt updates its row in place. Rows live
 * in a ref and a version number re-renders, so 10,000 rows are never copied per page or per event.
 */
export function useDeliveryFeed(filters: DeliveryFilters, watch?: string): DeliveryFeed {
  const watchId = useRef(watch);
  const watched = useRef<Delivery | undefined>(undefined);
  if (watchId.current !== watch) {
    watchId.current = watch;
    watched.current = undefined;
  }
  const rows = useRef<Delivery[]>([]);
  const index = useRef(new Map<string, Delivery>());
  const [, setVersion] = useState(0);
  const [state, setState] = useState({
    loading: true,
    complete: false,
    live: false,
    error: null as unknown,
  });
  const pending = useRef(false);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;

  const render = useCallback(() => {
    if (pending.current) return;
    pending.current = true;
    // One render per frame however many events arrive in it.
    requestAnimationFrame(() => {
      pending.current = false;
      setVersion((v) => v + 1);
    });
  }, []);

  const upsert = useCallback(
    (delivery: Delivery) => {
      if (
        delivery.id === watchId.current &&
        (!watched.current || watched.current.updatedAt <= delivery.updatedAt)
      ) {
        watched.current = delivery;
        render();
      }
      const known = index.current.get(delivery.id);
      if (!matchesFilters(delivery, filtersRef.current)) {
        if (known) {
          rows.current = rows.current.filter((d) => d.id !== delivery.id);
          index.current.delete(delivery.id);
          render();
        }
        return;
      }
      if (known && known.updatedAt > delivery.updatedAt) return;
      if (known) {
        const at = rows.current.indexOf(known);
        rows.current = rows.current.slice();
        rows.current[at] = delivery;
      } else {
        rows.current = [delivery, ...rows.current];
      }
      index.current.set(delivery.id, delivery);
      render();
    },
    [render],
  );

  const key = JSON.stringify(filters);
  // biome-ignore lint/correctness/useExhaustiveDependencies: filters is a new object on each render: its JSON (key) says when they changed
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    rows.current = [];
    index.current = new Map();
    setState({ loading: true, complete: false, live: false, error: null });
    setVersion((v) => v + 1);

    // The stream first, so no attempt between the first page and the stream's start is missed.
    const follow = async () => {
      while (!signal.aborted) {
        const query = new URLSearchParams();
        if (filters.pluginId) query.set('pluginId', filters.pluginId);
        if (filters.type) query.set('type', filters.type);
        try {
          setState((s) => ({ ...s, live: true }));
          await stream(
            'admin',
            `/deliveries/stream${query.size ? `?${query}` : ''}`,
            (event) => {
              if (event.event === 'attempt') upsert((event.data as DeliveryAttemptNotice).delivery);
            },
            signal,
          );
        } catch {
          // Reconnects below.
        }
        if (signal.aborted) return;
        setState((s) => ({ ...s, live: false }));
        await new Promise((r) => setTimeout(r, RECONNECT_MS));
        // What happened while the stream was down: the newest page again, merged in.
        try {
          const page = await call<Delivery[]>(
            'admin',
            'GET',
            listPath(filters, ''),
            undefined,
            signal,
          );
          for (const d of page.data.reverse()) upsert(d);
        } catch {
          // The emulator is still away: the next round tries again.
        }
      }
    };

    const load = async () => {
      let cursor = '';
      try {
        for (;;) {
          const page = await call<Delivery[]>(
            'admin',
            'GET',
            listPath(filters, cursor),
            undefined,
            signal,
          );
          const fresh = page.data.filter((d) => !index.current.has(d.id));
          for (const d of fresh) index.current.set(d.id, d);
          rows.current = rows.current.length === 0 ? fresh : rows.current.concat(fresh);
          const pagination = page.meta?.pagination as
            | { hasNext?: boolean; nextCursor?: string | null }
            | undefined;
          const done =
            !pagination?.hasNext || !pagination.nextCursor || rows.current.length >= MAX_ROWS;
          setState((s) => ({ ...s, loading: false, complete: done }));
          setVersion((v) => v + 1);
          if (done) return;
          cursor = pagination.nextCursor!;
        }
      } catch (error) {
        if (!signal.aborted) setState((s) => ({ ...s, loading: false, error }));
      }
    };

    void follow();
    void load();
    return () => controller.abort();
  }, [key, upsert]);

  const current = watch ? index.current.get(watch) : undefined;
  const latest =
    current && (!watched.current || current.updatedAt >= watched.current.updatedAt)
      ? current
      : watched.current;
  return { rows: rows.current, ...state, upsert, watched: latest };
}

/** Opens a delivery (or closes it with no id), keeping the filters in the URL. */
export function openDelivery(id?: string): void {
  const query = hashQuery();
  location.hash = `#/deliveries${id ? `/${encodeURIComponent(id)}` : ''}${query.size ? `?${query}` : ''}`;
}
