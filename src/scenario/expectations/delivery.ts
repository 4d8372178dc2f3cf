import type { Static } from '@sinclair/typebox';
import type { ExpectationContext, ExpectationFailure } from '../context.js';
import type { DeliveryExpectationSchema } from '../schema.js';
import { settledDeliveries } from './watch.js';

// The `delivery` expectation: how the plugin answers the deliveries the step caused (their count,
// the status of the first answer, its time, whether a retry was needed), once every one is
// answered. The emulator's only: a remote platform shows no delivery log (target.ts reports the
// expectation unchecked there).

export type DeliveryExpectation = Static<typeof DeliveryExpectationSchema>;

const is2xx = (code: number | null) => code !== null && code >= 200 && code < 300;

export async function checkDelivery(
  expectation: DeliveryExpectation,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const { type, count, withinMs, retried } = expectation;
  const deadline = Math.max(context.deadline, Date.now() + context.within);
  const all = await settledDeliveries(context, context.watch, deadline);
  const deliveries = type ? all.filter((d) => d.type === type) : all;
  const of = type ? `${type} deliveries` : 'deliveries';
  if (count !== undefined && deliveries.length !== count)
    return context.failure(
      `exactly ${count} ${of}`,
      `${deliveries.length}: ${deliveries.map((d) => `${d.type} ${d.id}`).join(', ') || 'none'}`,
      deliveries[0],
    );
  if (deliveries.length === 0)
    return count === 0
      ? null
      : context.failure(`a ${of.replace(/ies$/, 'y')} to the plugin`, 'none');
  const status = expectation.status ?? '2xx';
  for (const delivery of deliveries) {
    // The plugin's own answers: an attempt the emulator dropped, or a duplicate it sent, is not one.
    const marks = delivery.faults ?? [];
    const notAnswers = new Set(
      marks.filter((m) => m.kind === 'drop' || m.kind === 'duplicate').map((m) => m.attempt),
    );
    const answers = delivery.attempts.filter((a) => !notAnswers.has(a.number));
    const first = answers[0];
    const answered = first?.responseStatus ?? null;
    const okStatus = status === '2xx' ? is2xx(answered) : answered === status;
    if (!okStatus)
      return context.failure(
        `${delivery.type} answered ${status}`,
        first
          ? `${answered === null ? 'no answer' : `HTTP ${answered}`}${first.error ? ` (${first.error})` : ''}${first.responseBody ? `: ${first.responseBody.slice(0, 200)}` : ''}`
          : `no attempt reached the plugin yet (status ${delivery.status})`,
        delivery,
      );
    if (withinMs !== undefined && first.durationMs > withinMs)
      return context.failure(
        `${delivery.type} answered within ${withinMs} ms`,
        `answered in ${Math.round(first.durationMs)} ms`,
        delivery,
      );
    // Retried because of the plugin: one of its answers was not a 2xx (a lost answer, injected, was a 2xx).
    const refused = answers.filter((a) => !is2xx(a.responseStatus));
    if (retried === false && refused.length > 0)
      return context.failure(
        `${delivery.type} not retried`,
        `retried after ${refused.map((a) => (a.responseStatus === null ? `no answer (${a.error ?? 'none'})` : `HTTP ${a.responseStatus}`)).join(', ')}`,
        delivery,
      );
  }
  return null;
}
