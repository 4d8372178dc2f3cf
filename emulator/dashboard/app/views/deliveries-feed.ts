import { useCallback, useEffect, useRef, useState } from 'react';
import type { Delivery, DeliveryAttemptNotice } from '../../../../src/contract/index.js';
import { call, stream } from '../api.js';

/** What the Deliveries table shows: each filter empty when unset. */
export interface DeliveryFilters {
  pluginId: string;
  type: string;
  status: string;
  search: string;
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
}

const PAGE = 100;
/** Most deliveries held in the page: the log itself keeps 10,000 by default. */
const MAX_ROWS = 50_000;
const RECONNECT_MS = 1000;

/** Whether a delivery belongs in the table under these filters (the stream is not filtered by status or text). */
export function matchesFilters(delivery: Delivery, filters: DeliveryFilters): boolean {
  if (filters.pluginId && delivery.pluginId !== filters.pluginId) return false;
  if (filters.type && delivery.type !== filters.type) return false;
  if (filters.status && delivery.status !== filters.status) return false;
  const needle = filters.search.trim().toLowerCase();
  if (!needle) return true;
  // The same fields the admin API's @search looks into.
  return [delivery.id, delivery.type, delivery.eventId, delivery.url, delivery.pluginId, delivery.pluginInstanceId].some((v) => typeof v === 'string' && v.toLowerCase().includes(needle));
}

function listPath(filters: DeliveryFilters, cursor: string): string {
  const query = new URLSearchParams({ '@sortBy': 'createdAt', '@sortOrder': 'desc', '@limit': String(PAGE), '@cursor': cursor });
  if (filters.pluginId) query.set('pluginId', filters.pluginId);
  if (filters.type) query.set('type', filters.type);
  if (filters.status) query.set('status', filters.status);
  if (filters.search.trim()) query.set('@search', filters.search.trim());
  return `/deliveries?${query}`;
}

/**
 * Loads the delivery log page by page (the query system's cursor paging, newest first) and follows
 * the delivery stream: a new delivery goes on top, a new attempt updates its row in place. Rows live
 * in a ref and a version number re-renders, so 10,000 rows are never copied per page or per event.
 */
export function useDeliveryFeed(filters: DeliveryFilters): DeliveryFeed {
  const rows = useRef<Delivery[]>([]);
  const index = useRef(new Map<string, Delivery>());
  const [, setVersion] = useState(0);
  const [state, setState] = useState({ loading: true, complete: false, live: false, error: null as unknown });
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
          await stream('admin', `/deliveries/stream${query.size ? `?${query}` : ''}`, (event) => {
            if (event.event === 'attempt') upsert((event.data as DeliveryAttemptNotice).delivery);
          }, signal);
        } catch {
          // Reconnects below.
        }
        if (signal.aborted) return;
        setState((s) => ({ ...s, live: false }));
        await new Promise((r) => setTimeout(r, RECONNECT_MS));
      }
    };

    const load = async () => {
      let cursor = '';
      try {
        for (;;) {
          const page = await call<Delivery[]>('admin', 'GET', listPath(filters, cursor), undefined, signal);
          const fresh = page.data.filter((d) => !index.current.has(d.id));
          for (const d of fresh) index.current.set(d.id, d);
          rows.current = rows.current.length === 0 ? fresh : rows.current.concat(fresh);
          const pagination = page.meta?.pagination as { hasNext?: boolean; nextCursor?: string | null } | undefined;
          const done = !pagination?.hasNext || !pagination.nextCursor || rows.current.length >= MAX_ROWS;
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, upsert]);

  return { rows: rows.current, ...state, upsert };
}
