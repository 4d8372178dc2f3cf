import { shorten, type Column } from '../ui/output.js';
import type { Delivery, DeliveryAttempt, DeliveryAttemptNotice } from '#contract';
import type { Style } from '../ui/style.js';
import { escapeControl } from '../shared/plugin-output.js';

/** HH:MM:SS in local time: deliveries are read live, next to the plugin's own logs. */
export function clock(iso: string | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toTimeString().slice(0, 8);
}

function answerOf(attempt: DeliveryAttempt | undefined): string {
  if (!attempt) return '-';
  if (attempt.responseStatus !== null) return `HTTP ${attempt.responseStatus}`;
  return attempt.error ? shorten(attempt.error, 40) : 'no answer';
}

/** Columns of `plugsmith logs`. */
export const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: 'TIME', value: (d) => clock(d.createdAt) },
  { header: 'TYPE', value: (d) => d.type },
  { header: 'PLUGIN', value: (d) => d.pluginId },
  { header: 'STATUS', value: (d) => d.status },
  { header: 'ATTEMPTS', value: (d) => d.attempts.length },
  {
    header: 'LATENCY',
    value: (d) => (d.attempts.length ? `${d.attempts[d.attempts.length - 1].durationMs}ms` : '-'),
  },
  { header: 'RESPONSE', value: (d) => answerOf(d.attempts[d.attempts.length - 1]) },
  { header: 'ID', value: (d) => d.id },
];

/** The status an attempt leaves its delivery in, in words for a live line. */
function outcomeOf(notice: DeliveryAttemptNotice): string {
  const { delivery, attempt } = notice;
  if (delivery.status === 'delivered') return 'delivered';
  if (delivery.status === 'pending' && attempt.nextAttemptAt) {
    const inMs = Math.max(0, Date.parse(attempt.nextAttemptAt) - Date.now());
    return `failed, retry in ${inMs < 1000 ? `${inMs}ms` : `${Math.round(inMs / 1000)}s`}`;
  }
  return delivery.status === 'exhausted' ? 'failed, gave up (retries exhausted)' : 'failed';
}

/** One line per attempt, for `logs --follow` and `dev`: time, type, outcome, answer, latency, attempt, ids. */
export function attemptLine(
  notice: DeliveryAttemptNotice,
  style?: Pick<Style, 'green' | 'red' | 'yellow' | 'dim'>,
): string {
  const { delivery, attempt } = notice;
  const outcome = outcomeOf(notice);
  const painted = !style
    ? outcome
    : delivery.status === 'delivered'
      ? style.green(outcome)
      : delivery.status === 'pending'
        ? style.yellow(outcome)
        : style.red(outcome);
  const retry = attempt.number > 1 ? `  attempt ${attempt.number}` : '';
  const why =
    delivery.status !== 'delivered' && attempt.error ? `  (${shorten(attempt.error, 120)})` : '';
  const ids = `${delivery.id} ${delivery.pluginId}${delivery.pluginInstanceId ? `/${delivery.pluginInstanceId}` : ''}`;
  const faults = faultsOf(delivery, attempt.number);
  return `${clock(attempt.startedAt)}  ${delivery.type.padEnd(23)}  ${painted}  ${answerOf(attempt)}  ${attempt.durationMs}ms${retry}${faults}  ${style ? style.dim(ids) : ids}${why}`;
}

/** The faults injected into one attempt (the delivery's `faults` marks), e.g. `  [fault: delay 230ms, duplicate]`. */
function faultsOf(delivery: Delivery, attempt: number): string {
  const marks = (delivery.faults ?? []).filter((m) => m.attempt === attempt);
  if (marks.length === 0) return '';
  return `  [fault: ${marks.map((m) => (m.kind === 'delay' ? `delay ${m.ms}ms` : m.kind)).join(', ')}]`;
}

/** A one-line summary of a delivery's state (for trigger and redeliver). */
export function deliverySummary(d: Delivery): string {
  const last = d.attempts[d.attempts.length - 1];
  if (!last) return `delivery ${d.id} ${d.status} (no attempt yet)`;
  const tries = d.attempts.length > 1 ? `, ${d.attempts.length} attempts` : '';
  const why = d.status !== 'delivered' && last.error ? `: ${last.error}` : '';
  return `delivery ${d.id} ${d.status} (${answerOf(last)}, ${last.durationMs}ms${tries})${why}`;
}

/**
 * One delivery, for `plugsmith logs <deliveryId>`: a summary line, then each attempt (time, answer, latency, error, the start
 * of the answer's body) with the plugin's own output linked to it indented below, its text escaped (it is the plugin's).
 */
export function deliveryDetail(d: Delivery, style?: Pick<Style, 'dim' | 'red'>): string[] {
  const dim = (text: string) => (style ? style.dim(text) : text);
  const lines = [
    `${deliverySummary(d)}`,
    dim(
      `${d.type}  event ${d.eventId}  plugin ${d.pluginId}${d.pluginInstanceId ? `/${d.pluginInstanceId}` : ''}  ${d.url ?? 'no URL'}`,
    ),
  ];
  if (d.attempts.length === 0) lines.push('  no attempt yet');
  for (const attempt of d.attempts) {
    const error = attempt.error ? `  ${escapeControl(attempt.error)}` : '';
    lines.push(
      `  attempt ${attempt.number}  ${clock(attempt.startedAt)}  ${answerOf(attempt)}  ${attempt.durationMs}ms${error}`,
    );
    if (attempt.responseBody)
      lines.push(`    answer: ${escapeControl(shorten(attempt.responseBody, 200))}`);
    lines.push(...attemptOutputLines(attempt, style));
  }
  return lines;
}

/**
 * The plugin's own output linked to one attempt, indented (`indent`, default four spaces), its text escaped (it is the
 * plugin's): for `plugsmith logs <deliveryId>`, and `trigger` and `chat` when the plugin failed the event.
 */
export function attemptOutputLines(
  attempt: DeliveryAttempt,
  style?: Pick<Style, 'dim' | 'red'>,
  indent = '    ',
): string[] {
  const dim = (text: string) => (style ? style.dim(text) : text);
  const output = attempt.pluginOutput ?? [];
  if (output.length === 0)
    return [
      dim(
        `${indent}plugin output: none linked (plugsmith dev or scenario run --start captures it)`,
      ),
    ];
  const lines = [
    `${indent}plugin output (${output.length} line${output.length === 1 ? '' : 's'}):`,
  ];
  for (const line of output) {
    const text = escapeControl(line.text);
    const stream = line.stream === 'stderr' ? 'err' : 'out';
    lines.push(
      `${indent}${dim(`${clock(line.at)} ${stream}`)} ${line.stream === 'stderr' && style ? style.red(text) : text}`,
    );
  }
  return lines;
}
