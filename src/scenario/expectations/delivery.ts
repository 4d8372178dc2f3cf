import type { Static } from '@sinclair/typebox';
import type { ExpectationContext, ExpectationFailure } from '../context.js';
import type { DeliveryExpectationSchema } from '../schema.js';
import { is2xx, ownAnswers, retriedForThePlugin } from '../retries.js';
import { settledDeliveries } from './watch.js';

// The `delivery` expectation: how the plugin answers the deliveries the step caused (their count,
// the status of the first answer, its time, whether a retry was needed), once every one is
// answered. With `retried: true` a retry must have been needed, and `status` judges the answer that
// ended the retries (a plugin that fails once, then answers 2xx). The plugin's own answers only
// (retries.ts: what fault injection dropped, duplicated or cut off is not one). The emulator's only:
// a remote platform shows no delivery log (target.ts reports the expectation unchecked there).

export type DeliveryExpectation = Static<typeof DeliveryExpectationSchema>;

/** How an answer reads in a failure: `HTTP 500`, `no answer (timeout)`. */
function answerText(attempt: { responseStatus: number | null; error?: string | null }): string {
  return attempt.responseStatus === null
    ? `no answer (${attempt.error ?? 'none'})`
    : `HTTP ${attempt.responseStatus}`;
}

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
    const answers = ownAnswers(delivery);
    const first = answers[0];
    if (retried === true && !retriedForThePlugin(delivery))
      return context.failure(
        `${delivery.type} retried (a first answer other than 2xx)`,
        first
          ? `answered ${answers.map(answerText).join(', then ')}: no retry was needed`
          : `no attempt reached the plugin yet (status ${delivery.status})`,
        delivery,
      );
    // The answer `status` judges: the first, or after a retry that was expected, the one that ended it.
    const judged = retried === true ? answers.at(-1) : first;
    const answered = judged?.responseStatus ?? null;
    const okStatus = status === '2xx' ? is2xx(answered) : answered === status;
    if (!okStatus)
      return context.failure(
        `${delivery.type} answered ${status}${retried === true ? ' after its retries' : ''}`,
        judged
          ? `${answerText(judged)}${judged.error && judged.responseStatus !== null ? ` (${judged.error})` : ''}${judged.responseBody ? `: ${judged.responseBody.slice(0, 200)}` : ''}`
          : `no attempt reached the plugin yet (status ${delivery.status})`,
        delivery,
      );
    if (withinMs !== undefined && first.durationMs > withinMs)
      return context.failure(
        `${delivery.type} answered within ${withinMs} ms`,
        `answered in ${Math.round(first.durationMs)} ms`,
        delivery,
      );
    if (retried === false && retriedForThePlugin(delivery))
      return context.failure(
        `${delivery.type} not retried`,
        `retried after ${answers
          .filter((a) => !is2xx(a.responseStatus))
          .map(answerText)
          .join(', ')}`,
        delivery,
      );
  }
  return null;
}
