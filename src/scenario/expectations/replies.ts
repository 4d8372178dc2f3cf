import type { Static } from '@sinclair/typebox';
import type { Message } from '../../client/index.js';
import type { ExpectationContext, ExpectationFailure } from '../context.js';
import type { RepliesExpectationSchema } from '../schema.js';
import { SETTLE_GRACE_MS } from './reply.js';
import { blamedDelivery, POLL_MS, settledDeliveries } from './watch.js';

// The `replies` expectation: the plugin answers the step's message exactly this many times. On the
// emulator the replies are counted once the step's deliveries are answered (and the plugin had a
// moment more to write); on a remote platform, whose deliveries are not seen, the count is awaited
// and then watched a moment more for a reply too many.

export type RepliesExpectation = Static<typeof RepliesExpectationSchema>;

/** On a remote platform (no delivery log to tell when the plugin is done), how long a reply count is watched once reached. */
const REMOTE_SETTLE_MS = 1000;

function repliesText(count: number): string {
  return `${count} repl${count === 1 ? 'y' : 'ies'}`;
}

function quoted(replies: Message[]): string {
  return replies.map((m) => JSON.stringify(m.content)).join(', ');
}

export async function checkReplies(
  expectation: RepliesExpectation,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const { count } = expectation;
  if (context.remote) return checkRepliesRemote(count, context);
  const { watch, deadline } = context;
  await settledDeliveries(context, watch, deadline);
  for (;;) {
    // A plugin that writes after answering gets a moment: a reply too many shows then.
    await context.pause(SETTLE_GRACE_MS);
    const replies = await watch.replies();
    if (replies.length === count) return null;
    if (replies.length > count || Date.now() >= deadline) {
      const texts = quoted(replies);
      return context.failure(
        `exactly ${repliesText(count)}`,
        `${repliesText(replies.length)}${texts ? `: ${texts}` : ''}`,
        await blamedDelivery(watch),
      );
    }
    // Too few yet: the next reply, or the deadline.
    await watch.changed(deadline);
  }
}

/**
 * `replies` on a remote platform, whose deliveries are not seen: the count is awaited until the deadline, then a moment
 * more ({@link REMOTE_SETTLE_MS}, within the deadline) for a reply too many; none expected: the whole window. Polled: the
 * platform's messaging API names no event stream.
 */
async function checkRepliesRemote(
  count: number,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const { watch, withinMs, deadline } = context;
  let replies = await watch.replies();
  while (count > 0 && replies.length < count && Date.now() < deadline) {
    await context.pause(POLL_MS * 5);
    replies = await watch.replies();
  }
  if (replies.length === count) {
    const settle =
      count === 0 ? deadline - Date.now() : Math.min(REMOTE_SETTLE_MS, deadline - Date.now());
    await context.pause(Math.max(0, settle));
    replies = await watch.replies();
  }
  if (replies.length === count) return null;
  const texts = quoted(replies);
  return context.failure(
    `exactly ${repliesText(count)}`,
    `${repliesText(replies.length)}${texts ? `: ${texts}` : ''}${replies.length < count ? ` within ${withinMs} ms` : ''}`,
  );
}
