import { useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Delivery } from '../../../../src/contract/index.js';

const ROW_HEIGHT = 34;
const COLUMNS = ['Time', 'Status', 'Event type', 'Plugin', 'Instance', 'Attempts', 'Last answer', 'Delivery'];

/** A delivery's last answer in a few characters: the HTTP status, or why none came. */
export function lastAnswer(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return 'not yet';
  if (last.responseStatus !== null) return `HTTP ${last.responseStatus}`;
  return last.error?.includes('no answer within') ? 'timeout' : 'no answer';
}

/** The CSS class of a delivery status. */
export function statusClass(status: string): string {
  return status === 'delivered' ? 'status-ok' : status === 'pending' ? 'status-warn' : 'status-bad';
}

function time(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour12: false });
}

/**
 * The delivery log as an ARIA table whose rows are virtualized: only the rows in view (and a few
 * around) are in the DOM, so 10,000 deliveries scroll as smoothly as 10.
 */
export function DeliveriesTable({ rows, selected, onOpen }: { rows: Delivery[]; selected?: string; onOpen: (id: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12, getItemKey: (i) => rows[i].id });
  return (
    <div className="dl-table" role="table" aria-label="Deliveries" aria-rowcount={rows.length + 1}>
      <div role="rowgroup" className="dl-head">
        <div role="row" className="dl-row" aria-rowindex={1}>
          {COLUMNS.map((c) => (
            <div role="columnheader" key={c}>
              {c}
            </div>
          ))}
        </div>
      </div>
      <div ref={scroller} className="dl-scroll" data-testid="deliveries-scroll">
        <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const d = rows[item.index];
            return (
              <div
                role="row"
                key={item.key}
                aria-rowindex={item.index + 2}
                aria-selected={d.id === selected}
                className="dl-row dl-body-row"
                style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                onClick={() => onOpen(d.id)}
              >
                <div role="cell" className="muted" title={new Date(d.createdAt).toLocaleString()}>
                  {time(d.createdAt)}
                </div>
                <div role="cell" className={statusClass(d.status)}>{d.status}</div>
                <div role="cell">{d.type}</div>
                <div role="cell" className="mono">{d.pluginId}</div>
                <div role="cell" className="mono">{d.pluginInstanceId ?? '—'}</div>
                <div role="cell">{d.attempts.length}</div>
                <div role="cell">{lastAnswer(d)}</div>
                <div role="cell" className="mono">
                  <a href={`#/deliveries/${encodeURIComponent(d.id)}`} onClick={(e) => e.stopPropagation()}>
                    {d.id}
                  </a>
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
