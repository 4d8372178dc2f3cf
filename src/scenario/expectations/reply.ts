import type { Static } from '@sinclair/typebox';
import type { Message } from '../../client/index.js';
import { linearPattern } from '../../shared/linear-pattern.js';
import type { ExpectationContext, ExpectationFailure } from '../context.js';
import type { ReplyExpectationSchema } from '../schema.js';
import { blamedDelivery, hurry } from './watch.js';

// The `reply` expectation: the plugin answers the step's message with this text (or a reply that
// matches the pattern, or any reply). It passes at the first reply that fits; it fails once the
// step's deliveries are answered and the plugin had a moment more to write, or at its deadline.

export type ReplyExpectation = Static<typeof ReplyExpectationSchema>;

/** After the step's deliveries are answered, how long a plugin that writes after answering gets. */
export const SETTLE_GRACE_MS = 50;

export async function checkReply(
  expectation: ReplyExpectation,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const { watch, withinMs, deadline } = context;
  // RE2: linear in the reply, so a pattern such as (a+)+b cannot stall the run.
  const pattern = expectation.pattern !== undefined ? linearPattern(expectation.pattern) : null;
  const matches = (m: Message) =>
    expectation.text !== undefined
      ? m.content === expectation.text
      : pattern
        ? pattern.test(m.content)
        : true;
  const wanted =
    expectation.text !== undefined
      ? `a reply ${JSON.stringify(expectation.text)}`
      : expectation.pattern !== undefined
        ? `a reply matching /${expectation.pattern}/`
        : 'a reply';
  let settledAt: number | null = null;
  for (;;) {
    const replies = await watch.replies();
    if (replies.some(matches)) return null;
    const deliveries = await watch.deliveries();
    await hurry(context, deliveries);
    const answered = deliveries.length > 0 && !deliveries.some((d) => d.status === 'pending');
    if (replies.length > 0 && settledAt === null && answered) {
      settledAt = Date.now();
      watch.settled = deliveries;
    }
    const settledLongEnough = settledAt !== null && Date.now() - settledAt >= SETTLE_GRACE_MS;
    if (settledLongEnough || Date.now() >= deadline) {
      const observed = replies.length
        ? replies.map((m) => JSON.stringify(m.content)).join(', ')
        : `no reply within ${withinMs} ms`;
      return context.failure(wanted, observed, await blamedDelivery(watch));
    }
    const graceEnds = settledAt === null ? deadline : settledAt + SETTLE_GRACE_MS;
    await watch.changed(Math.min(deadline, graceEnds));
  }
}
