import type { Static } from '@sinclair/typebox';
import type { ExpectationContext, ExpectationFailure } from '../context.js';
import type { NoneExpectationSchema } from '../schema.js';
import { blamedDelivery } from './watch.js';

// The `none` expectation: the plugin writes no reply to the step's message within the window. An
// absence needs its whole window: the wait follows the conversation (its stream on the emulator)
// until the window ends, and the replies are read once more only if one came.

export type NoneExpectation = Static<typeof NoneExpectationSchema>;

export async function checkNone(
  _expectation: NoneExpectation,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const { watch, withinMs, deadline } = context;
  // Subscribed (and read) before the window, so that a reply at any moment of it is seen.
  await watch.replies();
  while (Date.now() < deadline) await watch.changed(deadline);
  const replies = await watch.replies();
  if (replies.length === 0) return null;
  return context.failure(
    `no reply within ${withinMs} ms`,
    replies.map((m) => JSON.stringify(m.content)).join(', '),
    await blamedDelivery(watch),
  );
}
