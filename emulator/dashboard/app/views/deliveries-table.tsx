// biome-ignore-all lint/a11y/useSemanticElements: an ARIA table of <div>s, because the virtualizer places each row absolutely, which <table> layout does not allow
import { memo, useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Delivery, Plugin } from '#contract';
import { absoluteTime, relativeTime } from '../format.js';

const ROW_HEIGHT = 34;
const estimateSize = () => ROW_HEIGHT;
const COLUMNS = [
  'Time',
  'Status',
  'Event kind',
  'Plugin',
  'Instance',
  'Attempts',
  'Last answer',
  'Delivery',
];

/** A delivery's last answer in a few characters: the HTTP status, or why none came. */
export function lastAnswer(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return 'not yet';
  if (last.responseStatus !== null) return `HTTP ${last.responseStatus}`;
  return last.error?.includes('no answer within') ? 'timeout' : 'no answer';
}

/** Whether some attempt of a delivery failed (even if a later one succeeded). */
export function failedOnce(delivery: Delivery): boolean {
  return delivery.attempts.some(
    (a) =>
      a.error !== null ||
      a.responseStatus === null ||
      a.responseStatus < 200 ||
      a.responseStatus > 299,
  );
}

/** The CSS class of a delivery status. */
export function statusClass(status: string): string {
  return status === 'delivered' ? 'status-ok' : status === 'pending' ? 'status-warn' : 'status-bad';
}

/** The time column: the time alone today, the date and the minute on any other day (the full timestamp is the cell's title). */
export function rowTime(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const today = at.toDateString() === now.toDateString();
  if (today) return at.toLocaleTimeString('en-GB', { hour12: false });
  const full = absoluteTime(at);
  const sameYear = at.getFullYear() === now.getFullYear();
  // "11-26 06:12" this year, "2025-11-26" before.
  return sameYear ? full.slice(5, 16) : full.slice(0, 10);
}

/** What the status cell says beyond the status: after how many attempts (a retried delivery). */
function statusNote(delivery: Delivery): { mark: string; words: string } | null {
  const attempts = delivery.attempts.length;
  if (attempts < 2) return null;
  return { mark: `×${attempts}`, words: `after ${attempts} attempts` };
}

/** The tags of the event kind cell: a resend (of which delivery), and injected faults. */
function typeTags(delivery: Delivery): Array<{ tag: string; words: string }> {
  const tags: Array<{ tag: string; words: string }> = [];
  if (delivery.redeliveryOf !== null)
    tags.push({ tag: 'resend', words: `resend of ${delivery.redeliveryOf}` });
  if ((delivery.faults?.length ?? 0) > 0) tags.push({ tag: 'faults', words: 'faults injected' });
  return tags;
}

/** One row; memoized, so a scroll renders only the rows that came into view. */
const DeliveryRow = memo(function DeliveryRow({
  delivery,
  index,
  start,
  selected,
  focusable,
  pluginName,
  onOpen,
}: {
  delivery: Delivery;
  index: number;
  start: number;
  selected: boolean;
  focusable: boolean;
  pluginName: string | undefined;
  onOpen: (id: string) => void;
}) {
  const recovered = delivery.status === 'delivered' && failedOnce(delivery);
  const note = statusNote(delivery);
  const tags = typeTags(delivery);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the table's scroller handles the keys for every row (arrows move, Enter and Space open)
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-index={index}
      tabIndex={focusable ? 0 : -1}
      className="dl-row dl-body-row"
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      onClick={() => onOpen(delivery.id)}
    >
      <div
        role="cell"
        className="muted"
        title={`${absoluteTime(delivery.createdAt)} (${relativeTime(delivery.createdAt)})`}
      >
        {rowTime(delivery.createdAt)}
      </div>
      <div
        role="cell"
        className={statusClass(delivery.status)}
        title={
          note
            ? `${delivery.status} ${note.words}${recovered ? ' (an earlier attempt failed)' : ''}`
            : undefined
        }
      >
        {delivery.status}
        {note && (
          <>
            {' '}
            <span className="dl-note" aria-hidden="true">
              {note.mark}
            </span>
            <span className="visually-hidden"> {note.words}</span>
          </>
        )}
      </div>
      <div role="cell" title={tags.length > 0 ? tags.map((t) => t.words).join('; ') : undefined}>
        {/* The tags first: with a delivery open the column is narrow, and the type is the longer part. */}
        {tags.map((t) => (
          <span key={t.tag}>
            <span className="dl-tag" aria-hidden="true">
              {t.tag}
            </span>
            <span className="visually-hidden">{t.words}:</span>{' '}
          </span>
        ))}
        {delivery.type}
      </div>
      <div role="cell" title={delivery.pluginId}>
        {pluginName ? (
          <>
            <bdi>{pluginName}</bdi> <span className="mono muted">{delivery.pluginId}</span>
          </>
        ) : (
          <span className="mono">{delivery.pluginId}</span>
        )}
      </div>
      <div role="cell" className="mono">
        {delivery.pluginInstanceId ?? '—'}
      </div>
      <div role="cell">{delivery.attempts.length}</div>
      <div role="cell">{lastAnswer(delivery)}</div>
      <div role="cell" className="mono">
        <a
          href={`#/deliveries/${encodeURIComponent(delivery.id)}`}
          tabIndex={-1}
          onClick={(e) => {
            e.preventDefault();
            e.stopPropagation();
            onOpen(delivery.id);
          }}
        >
          {delivery.id}
        </a>
      </div>
    </div>
  );
});

/**
 * The delivery log as an ARIA table whose rows are virtualized: only the rows in view (and a few
 * around) are in the DOM, so 10,000 deliveries scroll as smoothly as 10. One row is in the Tab
 * order; the arrow keys, Home and End move between rows, Enter opens one.
 */
export function DeliveriesTable({
  rows,
  selected,
  onOpen,
  plugins,
}: {
  rows: Delivery[];
  selected?: string;
  onOpen: (id: string) => void;
  plugins: Map<string, Plugin>;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  // Stable callbacks: a new getItemKey makes the virtualizer measure every row again, on every scroll frame.
  const getItemKey = useCallback((i: number) => rows[i].id, [rows]);
  const getScrollElement = useCallback(() => scroller.current, []);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    overscan: 8,
    getItemKey,
  });
  const selectedIndex = selected ? rows.findIndex((d) => d.id === selected) : -1;
  const focusIndex = Math.min(rows.length - 1, Math.max(0, active));

  /** Moves the keyboard to row `index`: scrolled into view, then focused once the virtualizer has drawn it. */
  const focusRow = (index: number) => {
    setActive(index);
    virtualizer.scrollToIndex(index);
    const focus = (tries: number) =>
      requestAnimationFrame(() => {
        const el = scroller.current?.querySelector<HTMLElement>(
          `[role=row][data-index="${index}"]`,
        );
        if (el) {
          el.focus({ preventScroll: true });
          el.scrollIntoView({ block: 'nearest' });
        } else if (tries > 0) focus(tries - 1);
      });
    focus(5);
  };

  // A closed delivery (Escape, Close) gives the focus back to its row, so the arrow keys go on working.
  const lastSelected = useRef(selected);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of the selection moves the focus
  useEffect(() => {
    const closed = lastSelected.current;
    lastSelected.current = selected;
    if (!closed || selected) return;
    const focused = document.activeElement;
    const dropped = !focused || focused === document.body || !focused.isConnected;
    if (!dropped) return;
    const index = rows.findIndex((d) => d.id === closed);
    if (index >= 0) focusRow(index);
  }, [selected]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('[role=row][data-index]');
    if (!row) return;
    const at = Number(row.dataset.index);
    let next = at;
    if (event.key === 'ArrowDown') next = at + 1;
    else if (event.key === 'ArrowUp') next = at - 1;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = rows.length - 1;
    else if (event.key === 'PageDown') next = at + 10;
    else if (event.key === 'PageUp') next = at - 10;
    else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onOpen(rows[at].id);
      return;
    } else return;
    event.preventDefault();
    next = Math.min(rows.length - 1, Math.max(0, next));
    focusRow(next);
  };

  return (
    <div
      className={rows.length === 0 ? 'dl-table dl-empty' : 'dl-table'}
      role="table"
      aria-label="Deliveries"
      aria-rowcount={rows.length + 1}
    >
      <div role="rowgroup" className="dl-head">
        {/* biome-ignore lint/a11y/useFocusableInteractive: the header row is read, not a keyboard stop; the body rows are */}
        <div role="row" className="dl-row" aria-rowindex={1}>
          {COLUMNS.map((c) => (
            // biome-ignore lint/a11y/useFocusableInteractive: a column header is read, not a keyboard stop
            <div role="columnheader" key={c}>
              {c}
            </div>
          ))}
        </div>
      </div>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: it handles keys and focus once for the rows inside it, which are the focusable elements */}
      <div
        ref={scroller}
        className="dl-scroll"
        data-testid="deliveries-scroll"
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          const index = (e.target as HTMLElement).dataset?.index;
          if (index !== undefined) setActive(Number(index));
        }}
      >
        <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const d = rows[item.index];
            const tabbable =
              item.index === (selectedIndex >= 0 && active === 0 ? selectedIndex : focusIndex);
            return (
              <DeliveryRow
                key={item.key}
                delivery={d}
                index={item.index}
                start={item.start}
                selected={d.id === selected}
                focusable={tabbable}
                pluginName={plugins.get(d.pluginId)?.name}
                onOpen={onOpen}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
