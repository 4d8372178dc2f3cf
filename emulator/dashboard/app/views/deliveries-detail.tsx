import { useEffect, useRef, useState } from 'react';
import type { Delivery, DeliveryAttempt, FaultMark, Plugin, PluginOutputLine } from '#contract';
import type { Overview } from '#contract/dashboard';
import { absoluteTime, relativeTime, when } from '../format.js';
import { pluginLabel } from '../use-plugin-names.js';
import { ApiFailure, call } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorBox } from '../components/error-box.js';
import { JsonView } from '../components/json-view.js';
import { curlCommand } from '../curl.js';
import { failedOnce, lastAnswer, statusClass } from './deliveries-table.js';
import { openDelivery } from './deliveries-feed.js';

/** Bodies longer than this many lines start collapsed. */
const BODY_LINES_SHOWN = 40;

/**
 * Every delivery of this delivery's event (a resend keeps the event id): the original and its
 * resends, linked, so a resend is read under the event it repeats.
 */
function EventDeliveries({ delivery }: { delivery: Delivery }) {
  const [group, setGroup] = useState<Delivery[] | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when this delivery changes (a resend of it updates nothing here, so its own updatedAt is enough of a clock)
  useEffect(() => {
    const controller = new AbortController();
    call<Delivery[]>(
      'admin',
      'GET',
      `/deliveries?eventId=${encodeURIComponent(delivery.eventId)}&@sortBy=createdAt&@sortOrder=asc&@limit=50`,
      undefined,
      controller.signal,
    ).then(
      (answer) => setGroup(answer.data),
      () => undefined,
    );
    return () => controller.abort();
  }, [delivery.id, delivery.eventId, delivery.updatedAt]);
  if (!group || group.length < 2) return null;
  return (
    <section aria-labelledby="dl-event-group">
      <h3 id="dl-event-group">Deliveries of this event ({group.length})</h3>
      <ol className="dl-event-group">
        {group.map((d) => (
          <li key={d.id}>
            {d.id === delivery.id ? (
              <strong aria-current="true" className="mono">
                {d.id}
              </strong>
            ) : (
              <a className="mono" href={`#/deliveries/${encodeURIComponent(d.id)}`}>
                {d.id}
              </a>
            )}{' '}
            {d.redeliveryOf ? `resend of ${d.redeliveryOf}` : 'original'} · {d.status} ·{' '}
            {absoluteTime(d.createdAt)}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The body the emulator signed and sent: exactly JSON.stringify of the logged event. */
export function signedBody(delivery: Delivery): string {
  return JSON.stringify(delivery.event);
}

/** The headers an attempt sent; for a record logged before they were kept, the ones that can be rebuilt. */
function sentHeaders(delivery: Delivery, attempt: DeliveryAttempt): Record<string, string> {
  if (attempt.requestHeaders && Object.keys(attempt.requestHeaders).length > 0)
    return attempt.requestHeaders;
  return {
    'webhook-id': delivery.eventId,
    'webhook-timestamp': attempt.webhookTimestamp,
    'content-type': 'application/json',
  };
}

/** A body made readable by its content type: JSON indented, HTML and XML one element a line, the rest as it came. */
export function pretty(text: string | null, contentType = ''): string {
  if (text === null) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON
  }
  if (/html|xml/i.test(contentType) || /^\s*</.test(text)) return text.replace(/>\s*</g, '>\n<');
  return text;
}

function HeadersTable({ headers, label }: { headers: Record<string, string>; label: string }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p className="muted">No headers.</p>;
  return (
    <table aria-label={label} className="dl-headers">
      <thead>
        <tr>
          <th scope="col">Header</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <td className="mono">{name}</td>
            <td className="mono dl-wrap">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** When an attempt's answer came, the plugin's lines reach the emulator a moment later (the CLI posts them in batches): read again then. */
const OUTPUT_SETTLE_MS = 300;

/** The clock time of a line, to the millisecond (lines of one attempt are milliseconds apart). */
function lineTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toTimeString().slice(0, 8) + '.' + iso.slice(20, 23);
}

/** The plugin's own output linked to one attempt: untrusted text, shown as text (React escapes it; the emulator escaped control characters). */
function PluginOutput({ attempt, heading }: { attempt: DeliveryAttempt; heading: string }) {
  const lines: PluginOutputLine[] = attempt.pluginOutput ?? [];
  return (
    <section className="dl-output" aria-label={`Plugin output of attempt ${attempt.number}`}>
      <h4>{heading}</h4>
      {lines.length === 0 ? (
        <p className="muted" data-testid="plugin-output-none">
          No output of the plugin is linked to this attempt (plugsmith dev and scenario run --start
          capture it).
        </p>
      ) : (
        <ol className="dl-output-lines mono" data-testid="plugin-output">
          {lines.map((line, index) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: lines have no id; their order never changes
              key={index}
              className={line.stream === 'stderr' ? 'dl-output-stderr' : undefined}
            >
              <span className="muted">
                {lineTime(line.at)} {line.stream === 'stderr' ? 'err' : 'out'}
              </span>{' '}
              {line.text}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** A delivery from the stream (no plugin output) with the output of the same attempts as last read. */
function withOutputOf(delivery: Delivery, read: Delivery | null): Delivery {
  if (!read || read === delivery || read.id !== delivery.id) return delivery;
  return {
    ...delivery,
    attempts: delivery.attempts.map((a) => {
      if (a.pluginOutput) return a;
      const output = read.attempts.find((r) => r.number === a.number)?.pluginOutput;
      return output ? { ...a, pluginOutput: output } : a;
    }),
  };
}

function Attempt({ delivery, attempt }: { delivery: Delivery; attempt: DeliveryAttempt }) {
  const headers = sentHeaders(delivery, attempt);
  const body = signedBody(delivery);
  const curl = curlCommand({ url: attempt.url, headers, body });
  const answered = attempt.responseStatus !== null;
  const ok =
    answered &&
    attempt.responseStatus! >= 200 &&
    attempt.responseStatus! < 300 &&
    attempt.error === null;
  return (
    <section
      className="panel dl-attempt"
      aria-label={`Attempt ${attempt.number}`}
      id={`attempt-${attempt.number}`}
    >
      <h3>
        Attempt {attempt.number}{' '}
        <span className={ok ? 'status-ok' : 'status-bad'}>
          {answered ? `HTTP ${attempt.responseStatus}` : 'no answer'}
        </span>{' '}
        <span className="muted">
          {when(attempt.startedAt)} · {attempt.durationMs.toLocaleString('en')} ms
        </span>
      </h3>
      {attempt.error && (
        <p className="status-bad" data-testid="attempt-error">
          {attempt.error}
        </p>
      )}
      {attempt.nextAttemptAt && retryAwaited(delivery, attempt.number) && (
        <p className="status-warn">Next retry: {when(attempt.nextAttemptAt)}</p>
      )}
      {attempt.pluginOutput && <PluginOutput attempt={attempt} heading="Plugin output" />}
      <div className="dl-columns">
        <div>
          <h4>Request</h4>
          <p className="mono dl-wrap">POST {attempt.url}</p>
          <HeadersTable headers={headers} label={`Request headers of attempt ${attempt.number}`} />
          <div className="toolbar">
            <CopyButton text={curl} label="Copy as curl" />
          </div>
          <details>
            <summary>curl command</summary>
            <textarea
              readOnly
              className="dl-curl mono"
              aria-label={`curl command of attempt ${attempt.number}`}
              value={curl}
              rows={8}
            />
          </details>
        </div>
        <div>
          <h4>Response</h4>
          {answered ? (
            <>
              <p>
                Status <strong>{attempt.responseStatus}</strong> in {attempt.durationMs} ms
              </p>
              {attempt.responseHeaders && (
                <HeadersTable
                  headers={attempt.responseHeaders}
                  label={`Response headers of attempt ${attempt.number}`}
                />
              )}
              <JsonView
                value={
                  pretty(
                    attempt.responseBody,
                    Object.entries(attempt.responseHeaders ?? {}).find(
                      ([k]) => k.toLowerCase() === 'content-type',
                    )?.[1],
                  ) || '(empty body)'
                }
                label={`Response body of attempt ${attempt.number}`}
                collapseAbove={BODY_LINES_SHOWN}
              />
              <p className="muted">The log keeps the first 2 KB of an answer.</p>
            </>
          ) : (
            <p className="muted">No answer{attempt.error ? ': see the error above' : ''}.</p>
          )}
        </div>
      </div>
    </section>
  );
}

/**
 * One delivery: what was sent (the signed body, pretty-printed) and every attempt with its exact
 * request and the answer, with Resend, Copy body and Copy as curl.
 */
/** Ticks every second while `on`: for "next in 8 s". */
function useNow(on: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return now;
}

/** The attempts at a glance: one mark per attempt (its answer), where the delivery stands, and when it tries next. */
/** Attempts a delivery gets in all (from the Overview's delivery policy), read once per page. */
let policy: Promise<number | null> | null = null;
function useAttemptsAllowed(): number | null {
  const [allowed, setAllowed] = useState<number | null>(null);
  useEffect(() => {
    policy ??= call<Overview>('admin', 'GET', '/overview').then(
      (a) => a.data.deliveryPolicy?.attempts ?? null,
      () => {
        policy = null;
        return null;
      },
    );
    void policy.then(setAllowed);
  }, []);
  return allowed;
}

/** Whether a retry after this attempt is still to come: the delivery is pending, not cancelled, not held, and it is the last attempt. */
function retryAwaited(delivery: Delivery, attemptNumber: number): boolean {
  return (
    delivery.status === 'pending' &&
    !delivery.cancelledAt &&
    !delivery.heldSince &&
    attemptNumber === delivery.attempts.length
  );
}

/** A fault the emulator injected, in words. */
export function faultWords(fault: FaultMark): string {
  switch (fault.kind) {
    case 'delay':
      return `attempt ${fault.attempt}: delayed ${fault.ms.toLocaleString('en')} ms`;
    case 'reorder':
      return `attempt ${fault.attempt}: held back ${fault.heldMs.toLocaleString('en')} ms${fault.overtakenBy ? `, overtaken by ${fault.overtakenBy}` : ''}`;
    case 'drop':
      return `attempt ${fault.attempt}: dropped (never reached the plugin)`;
    case 'timeout-after-answer':
      return `attempt ${fault.attempt}: timed out after the plugin answered ${fault.answeredStatus}`;
    case 'duplicate':
      return `attempt ${fault.attempt}: a duplicate of attempt ${fault.of}`;
  }
}

function AttemptsTimeline({ delivery }: { delivery: Delivery }) {
  const now = useNow(delivery.status === 'pending');
  const allowed = useAttemptsAllowed();
  const count = delivery.attempts.length;
  const of = delivery.retries && allowed !== null ? ` of ${allowed}` : '';
  let summary: string;
  if (delivery.heldSince) {
    summary = `held since ${relativeTime(delivery.heldSince)}: no attempt until its plugin's hold is released`;
  } else if (delivery.status === 'pending') {
    const next = delivery.nextAttemptAt
      ? Math.max(0, Math.round((Date.parse(delivery.nextAttemptAt) - now) / 1000))
      : null;
    summary =
      count === 0
        ? `attempt 1${of} on its way`
        : `attempt ${count}${of} failed, attempt ${count + 1} ${next === null || next === 0 ? 'now' : `in ${next} s`}`;
  } else if (delivery.cancelledAt) {
    summary = `retries cancelled after attempt ${count}, ${relativeTime(delivery.cancelledAt)}`;
  } else {
    summary = `${delivery.status} after ${count === 1 ? '1 attempt' : `${count} attempts`}${delivery.status === 'delivered' && failedOnce(delivery) ? ' (an earlier attempt failed)' : ''}`;
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: a named group of attempts, not a <fieldset> of form fields
    <div className="dl-timeline" aria-label="Attempts timeline" role="group">
      <p data-testid="attempts-summary">{summary}</p>
      <ol>
        {delivery.attempts.map((a) => {
          const ok =
            a.error === null &&
            a.responseStatus !== null &&
            a.responseStatus >= 200 &&
            a.responseStatus < 300;
          return (
            <li key={a.number}>
              <a
                href={`#attempt-${a.number}`}
                className={ok ? 'status-ok' : 'status-bad'}
                title={`${absoluteTime(a.startedAt)} · ${a.durationMs} ms${a.error ? ` · ${a.error}` : ''}`}
                onClick={(e) => {
                  e.preventDefault();
                  document
                    .getElementById(`attempt-${a.number}`)
                    ?.scrollIntoView({ block: 'start' });
                }}
              >
                #{a.number}{' '}
                {a.responseStatus ??
                  (a.error?.includes('no answer within') ? 'timeout' : 'no answer')}
              </a>
            </li>
          );
        })}
        {delivery.status === 'pending' && <li className="status-warn">#{count + 1} …</li>}
      </ol>
    </div>
  );
}

export function DeliveryDetail({
  deliveryId,
  live,
  onResent,
  plugins,
}: {
  deliveryId: string;
  live?: Delivery;
  onResent: (delivery: Delivery) => void;
  plugins: Map<string, Plugin>;
}) {
  const [fetched, setFetched] = useState<Delivery | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [resending, setResending] = useState(false);
  const [acting, setActing] = useState(false);
  const panel = useRef<HTMLElement>(null);
  // Focus moves into the delivery when it opens; Escape closes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves into the panel each time another delivery opens
  useEffect(() => {
    panel.current?.focus({ preventScroll: true });
    // On a narrow screen the delivery opens below the list: bring it into view.
    const top = panel.current?.getBoundingClientRect().top ?? 0;
    if (top < 0 || top > innerHeight * 0.8) panel.current?.scrollIntoView({ block: 'start' });
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('details[open], textarea')) return;
      openDelivery();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [deliveryId]);
  useEffect(() => {
    const controller = new AbortController();
    setFetched(null);
    setError(null);
    call<Delivery>(
      'admin',
      'GET',
      `/deliveries/${encodeURIComponent(deliveryId)}`,
      undefined,
      controller.signal,
    ).then(
      (answer) => setFetched(answer.data),
      (e) => !controller.signal.aborted && setError(e),
    );
    return () => controller.abort();
  }, [deliveryId]);

  // A new attempt (over the stream) has its plugin output a moment later: read the delivery again then.
  const liveVersion = live?.updatedAt;
  useEffect(() => {
    if (!liveVersion) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      call<Delivery>(
        'admin',
        'GET',
        `/deliveries/${encodeURIComponent(deliveryId)}`,
        undefined,
        controller.signal,
      ).then(
        (answer) => setFetched(answer.data),
        () => undefined,
      );
    }, OUTPUT_SETTLE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [deliveryId, liveVersion]);

  // The stream keeps the table's copy current; the fetched one covers a delivery the table does not hold.
  const gone = error instanceof ApiFailure && error.status === 404;
  const delivery = gone
    ? null
    : live && (!fetched || live.updatedAt >= fetched.updatedAt)
      ? withOutputOf(live, fetched)
      : fetched;
  if (!delivery) {
    return (
      <aside className="dl-detail" aria-label={`Delivery ${deliveryId}`} tabIndex={-1} ref={panel}>
        <div className="dl-detail-head">
          <h2>{gone ? 'Delivery not found' : 'Delivery'}</h2>
          <a href="#/deliveries" aria-label="Close delivery">
            Close
          </a>
        </div>
        {gone ? (
          <>
            <p data-testid="delivery-gone">
              This delivery no longer exists: <span className="mono">{deliveryId}</span> is not in
              the emulator's log (it was reset, a store was imported, or the log dropped it).
            </p>
            <div className="toolbar">
              <button type="button" className="primary" disabled>
                Resend
              </button>
            </div>
          </>
        ) : error ? (
          <ErrorBox error={error} />
        ) : (
          <p className="muted">Loading {deliveryId}…</p>
        )}
      </aside>
    );
  }
  const resend = async () => {
    setResending(true);
    setError(null);
    try {
      // Answered at once with the new delivery (pending): it opens, and its attempts come over the stream.
      const answer = await call<Delivery>(
        'admin',
        'POST',
        `/deliveries/${encodeURIComponent(delivery.id)}/redeliver?wait=false`,
      );
      onResent(answer.data);
      openDelivery(answer.data.id);
    } catch (e) {
      setError(e);
    } finally {
      setResending(false);
    }
  };
  const act = async (action: 'retry' | 'cancel') => {
    setActing(true);
    setError(null);
    try {
      const answer = await call<Delivery>(
        'admin',
        'POST',
        `/deliveries/${encodeURIComponent(delivery.id)}/${action}`,
      );
      setFetched(answer.data);
      onResent(answer.data);
    } catch (e) {
      setError(e);
    } finally {
      setActing(false);
    }
  };
  // The newest attempt's plugin output goes at the top when there is some, or when that attempt failed (to say where it would be).
  const newest = delivery.attempts.at(-1);
  const newestFailed =
    newest !== undefined &&
    (newest.error !== null ||
      newest.responseStatus === null ||
      newest.responseStatus < 200 ||
      newest.responseStatus >= 300);
  const latest = newest && (newest.pluginOutput || newestFailed) ? newest : undefined;
  const challenge = delivery.type === 'WEBHOOK_CHALLENGE';
  const pending = delivery.status === 'pending';
  return (
    <aside className="dl-detail" aria-label={`Delivery ${delivery.id}`} tabIndex={-1} ref={panel}>
      <div className="dl-detail-head">
        <h2>
          {delivery.type} <span className={statusClass(delivery.status)}>{delivery.status}</span>
        </h2>
        {/* biome-ignore lint/a11y/useValidAnchor: it goes back to the list (a real href for a new tab); the click keeps the list's filters in the hash */}
        <a
          href="#/deliveries"
          aria-label="Close delivery"
          aria-keyshortcuts="Escape"
          onClick={(e) => {
            e.preventDefault();
            openDelivery();
          }}
        >
          Close
        </a>
      </div>
      <div className="toolbar">
        <button
          type="button"
          className="primary"
          onClick={resend}
          disabled={resending || challenge}
          title={
            challenge
              ? 'A WEBHOOK_CHALLENGE is never sent again: verify the webhook again instead'
              : pending
                ? 'Sends the event again as a new delivery and cancels the retries of this one'
                : undefined
          }
        >
          {resending ? 'Resending…' : 'Resend'}
        </button>
        {pending && !challenge && (
          <>
            <button type="button" onClick={() => act('retry')} disabled={acting}>
              Retry now
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => act('cancel')}
              disabled={acting}
            >
              Cancel retries
            </button>
          </>
        )}
        <CopyButton text={signedBody(delivery)} label="Copy body" />
      </div>
      <ErrorBox error={error} />
      <AttemptsTimeline delivery={delivery} />
      {latest && (
        <PluginOutput
          attempt={latest}
          heading={`Plugin output · attempt ${latest.number} · ${latest.responseStatus !== null ? `HTTP ${latest.responseStatus}` : 'no answer'}`}
        />
      )}
      <dl className="dl-facts">
        <dt>Delivery</dt>
        <dd className="mono">{delivery.id}</dd>
        <dt>Event id</dt>
        <dd className="mono">{delivery.eventId}</dd>
        <dt>Plugin</dt>
        <dd>{pluginLabel(plugins, delivery.pluginId)}</dd>
        <dt>Created</dt>
        <dd>{when(delivery.createdAt)}</dd>
        <dt>Instance</dt>
        <dd className="mono">{delivery.pluginInstanceId ?? '—'}</dd>
        <dt>URL</dt>
        <dd className="mono dl-wrap">{delivery.url ?? '—'}</dd>
        <dt>Last answer</dt>
        <dd>{lastAnswer(delivery)}</dd>
        {delivery.heldSince ? (
          <>
            <dt>Next retry</dt>
            <dd data-testid="held">
              held since {when(delivery.heldSince)}: no attempt until its plugin's hold is released
            </dd>
          </>
        ) : (
          delivery.nextAttemptAt &&
          retryAwaited(delivery, delivery.attempts.length) && (
            <>
              <dt>Next retry</dt>
              <dd>{when(delivery.nextAttemptAt)}</dd>
            </>
          )
        )}
        {(delivery.faults?.length ?? 0) > 0 && (
          <>
            <dt>Faults injected</dt>
            <dd>
              <ul className="dl-faults" aria-label="Faults injected">
                {delivery.faults?.map((fault, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the record's own list, never reordered
                  <li key={i}>{faultWords(fault)}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {delivery.redeliveryOf && (
          <>
            <dt>Resend of</dt>
            <dd className="mono">
              <a href={`#/deliveries/${encodeURIComponent(delivery.redeliveryOf)}`}>
                {delivery.redeliveryOf}
              </a>
            </dd>
          </>
        )}
        {delivery.cancelledAt && (
          <>
            <dt>Retries cancelled</dt>
            <dd>{when(delivery.cancelledAt)}</dd>
          </>
        )}
      </dl>
      <h3>Signed body</h3>
      <JsonView value={delivery.event} label="Signed body" collapseAbove={BODY_LINES_SHOWN} />
      <EventDeliveries delivery={delivery} />
      <h3>Attempts ({delivery.attempts.length})</h3>
      {delivery.attempts.length === 0 && <p className="muted">No attempt yet.</p>}
      {[...delivery.attempts].reverse().map((attempt) => (
        <Attempt key={attempt.number} delivery={delivery} attempt={attempt} />
      ))}
    </aside>
  );
}
