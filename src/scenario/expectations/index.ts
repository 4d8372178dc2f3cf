import type { ExpectationBody, ExpectationKind, ExpectationOf } from '../schema.js';
import type { ExpectationContext, ExpectationFailure } from '../context.js';
import { checkDelivery } from './delivery.js';
import { checkFile } from './file.js';
import { checkNone } from './none.js';
import { checkReplies } from './replies.js';
import { checkReply } from './reply.js';

// Every expectation kind's check, by kind: the runner (run.ts) finds an expectation's module here.
// A kind of schema.ts without its check here does not compile.

/** Checks one expectation of a kind (its references expanded): null when it holds, else what was expected and seen. */
export type ExpectationCheck<K extends ExpectationKind> = (
  expectation: ExpectationBody<K>,
  context: ExpectationContext,
) => Promise<ExpectationFailure | null>;

const EXPECTATIONS: { [K in ExpectationKind]: ExpectationCheck<K> } = {
  reply: checkReply,
  replies: checkReplies,
  file: checkFile,
  delivery: checkDelivery,
  none: checkNone,
};

/** Checks an expectation with its kind's module. */
export function checkExpectation<K extends ExpectationKind>(
  expectation: ExpectationOf<K>,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const check: ExpectationCheck<K> = EXPECTATIONS[expectation.kind];
  return check(expectation.body, context);
}

/** An expectation as written: `reply {"text":"hi"}`. */
export function describeExpectation(expectation: ExpectationOf<ExpectationKind>): string {
  return `${expectation.kind} ${JSON.stringify(expectation.body)}`;
}
