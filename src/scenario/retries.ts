import type { Delivery } from '../client/index.js';

// Which deliveries of a run the plugin did not take at the first attempt: a scenario makes a retry at
// once (it never waits out the schedule), so a plugin that answers 500 now and then still passes;
// the result says so instead of keeping quiet.

/** A delivery of the run that needed a retry because of the plugin's own answer. */
export interface RetriedDelivery {
  deliveryId: string;
  type: string;
  /** The index of the step it came from (the one running when it was made); null before the first. */
  step: number | null;
  /** The plugin's answers in order: `HTTP 500`, `no answer (timeout)`, `HTTP 200`. */
  answers: string[];
  /** Its status when the run ended. */
  status: string;
}

export const is2xx = (code: number | null) => code !== null && code >= 200 && code < 300;

/**
 * The plugin's own answers to a delivery: an attempt that fault injection dropped, cut off after the
 * answer, or a duplicate it sent, is not one.
 */
export function ownAnswers(delivery: Delivery): Delivery['attempts'] {
  const notAnswers = new Set(
    (delivery.faults ?? [])
      .filter(
        (m) => m.kind === 'drop' || m.kind === 'duplicate' || m.kind === 'timeout-after-answer',
      )
      .map((m) => m.attempt),
  );
  return delivery.attempts.filter((a) => !notAnswers.has(a.number));
}

function answerText(attempt: Delivery['attempts'][number]): string {
  return attempt.responseStatus === null
    ? `no answer (${attempt.error ?? 'none'})`
    : `HTTP ${attempt.responseStatus}`;
}

/** Whether the plugin refused one of its own answers (not a 2xx, or none) before the delivery's last attempt: a retry followed it. */
export function retriedForThePlugin(delivery: Delivery): boolean {
  const last = delivery.attempts.at(-1)?.number;
  if (last === undefined) return false;
  return ownAnswers(delivery).some((a) => a.number < last && !is2xx(a.responseStatus));
}

/**
 * The deliveries whose plugin refused an answer (not a 2xx, or none) and were tried again, each with
 * the step it belongs to: the last of `stepStarts` (ISO times) at or before it was made.
 */
export function retriedDeliveries(deliveries: Delivery[], stepStarts: string[]): RetriedDelivery[] {
  const out: RetriedDelivery[] = [];
  for (const delivery of deliveries) {
    if (delivery.type === 'WEBHOOK_CHALLENGE' || !retriedForThePlugin(delivery)) continue;
    const answers = ownAnswers(delivery);
    let step: number | null = null;
    stepStarts.forEach((started, index) => {
      if (started !== undefined && started <= delivery.createdAt) step = index;
    });
    out.push({
      deliveryId: delivery.id,
      type: delivery.type,
      step,
      answers: answers.map(answerText),
      status: delivery.status,
    });
  }
  return out;
}

/**
 * `2 deliveries needed a retry`, and `1 delivery got no 2xx in any attempt (exhausted)` for those a retry did not bring
 * through; '' for none.
 */
export function retriesSummary(retried: readonly RetriedDelivery[]): string {
  const deliveries = (n: number) => `${n} deliver${n === 1 ? 'y' : 'ies'}`;
  const through = retried.filter((d) => d.status === 'delivered').length;
  const notThrough = retried.filter((d) => d.status !== 'delivered');
  const parts: string[] = [];
  if (through > 0) parts.push(`${deliveries(through)} needed a retry`);
  if (notThrough.length > 0) {
    const statuses = [...new Set(notThrough.map((d) => d.status))].join(', ');
    parts.push(`${deliveries(notThrough.length)} got no 2xx in any attempt yet (${statuses})`);
  }
  return parts.join('; ');
}
