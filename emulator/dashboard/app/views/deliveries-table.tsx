import { memo, useRef } from 'react';
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

/** One row; memoized, so a scroll renders only the rows that came into view. */
const DeliveryRow = memo(function DeliveryRow({ delivery, index, start, selected, onOpen }: { delivery: Delivery; index: number; start: number; selected: boolean; onOpen: (id: string) => void }) {
  return (
              <div
                role="row"
                aria-rowindex={index + 2}
                aria-selected={selected}
                className="dl-row dl-body-row"
                style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
                onClick={() => onOpen(delivery.id)}
              >
                <div role="cell" className="muted" title={new Date(delivery.createdAt).toLocaleString()}>
                  {time(delivery.createdAt)}
                </div>
                <div role="cell" className={statusClass(delivery.status)}>{delivery.status}</div>
                <div role="cell">{delivery.type}</div>
                <div role="cell" className="mono">{delivery.pluginId}</div>
                <div role="cell" className="mono">{delivery.pluginInstanceId ?? '—'}</div>
                <div role="cell">{delivery.attempts.length}</div>
                <div role="cell">{lastAnswer(delivery)}</div>
                <div role="cell" className="mono">
                  <a href={`#/deliveries/${encodeURIComponent(delivery.id)}`} onClick={(e) => e.stopPropagation()}>
                    {delivery.id}
                  </a>
                </div>
              </div>
    );
});

/**
 * The delivery log as an ARIA table whose rows are virtualized: only the rows in view (and a few
 * around) are in the DOM, so 10,000 deliveries scroll as smoothly as 10.
 */
export function DeliveriesTable({ rows, selected, onOpen }: { rows: Delivery[]; selected?: string; onOpen: (id: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8, getItemKey: (i) => rows[i].id });
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
            return <DeliveryRow key={item.key} delivery={d} index={item.index} start={item.start} selected={d.id === selected} onOpen={onOpen} />;
          })}
        </div>
      </div>
    </div>
  );
}
