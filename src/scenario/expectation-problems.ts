import { linearPatternProblem } from '../shared/linear-pattern.js';
import {
  EXPECTATION_KIND_NAMES,
  EXPECTATION_KINDS,
  isExpectationOf,
  typedExpectation,
  type Expectation,
  type ExpectationBody,
  type ExpectationKind,
  type StepKind,
} from './schema.js';
import { isObject, suggestion, type ScenarioProblem } from './problems.js';
import { kindOf, schemaProblems } from './schema-problems.js';

// A step's expectations, checked: each kind's schema, what the step can cause, a pattern RE2 can run, and expectations
// of one step that contradict each other.

/** Expectations that name what a step of this kind cannot cause. */
const NEEDS_MESSAGE: ExpectationKind[] = ['reply', 'replies', 'none'];

function isExpectationKind(key: string): key is ExpectationKind {
  return (EXPECTATION_KIND_NAMES as string[]).includes(key);
}

/** A step's expectations, each checked (every problem added); those without problems returned. */
export function checkExpectations(
  raw: unknown,
  at: string,
  kind: StepKind | null,
  stepBody: unknown,
  problems: ScenarioProblem[],
): Expectation[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push({
      path: at,
      message: `expect takes a list, not ${kindOf(raw)}`,
      fix: 'write "expect": [ { "reply": { "text": "…" } } ]',
    });
    return [];
  }
  const out: Expectation[] = [];
  const indexes: number[] = [];
  raw.forEach((item, index) => {
    const here = `${at}[${index}]`;
    if (!isObject(item) || Object.keys(item).length === 0) {
      problems.push({
        path: here,
        message: isObject(item)
          ? 'the expectation is empty: it has no kind'
          : `an expectation is an object, not ${kindOf(item)}`,
        fix: `write { "<kind>": { … } } (kinds: ${EXPECTATION_KIND_NAMES.join(', ')})`,
      });
      return;
    }
    const names = Object.keys(item);
    if (names.length > 1)
      problems.push({
        path: here,
        message: `the expectation has ${names.length} kinds (${names.join(', ')})`,
        fix: `split it: one kind per expectation, e.g. ${names.map((n) => `{ "${n}": … }`).join(', ')}`,
      });
    for (const name of names) {
      if (!isExpectationKind(name)) {
        problems.push({
          path: `${here}.${name}`,
          message: `"${name}" is not an expectation`,
          fix: `${suggestion(name, EXPECTATION_KIND_NAMES)}use one of ${EXPECTATION_KIND_NAMES.join(', ')}`,
        });
        continue;
      }
      const before = problems.length;
      checkExpectation(name, item[name], `${here}.${name}`, kind, stepBody, problems);
      const expectation =
        names.length === 1 && problems.length === before
          ? typedExpectation(name, item[name])
          : null;
      if (expectation) {
        out.push(expectation);
        indexes.push(index);
      }
    }
  });
  for (const problem of contradictions(out, indexes, at)) problems.push(problem);
  return out;
}

const is2xx = (status: unknown) =>
  status === undefined ||
  status === '2xx' ||
  (typeof status === 'number' && status >= 200 && status < 300);

/**
 * Expectations of one step that cannot all hold: a reply and none, counts that differ, a delivery
 * that must both fail and not be retried… Each is a problem: the step could never pass (or one
 * of them would be silently left unchecked).
 */
function contradictions(
  expectations: Expectation[],
  indexes: number[],
  at: string,
): ScenarioProblem[] {
  const out: ScenarioProblem[] = [];
  const where = (i: number) => `${at}[${indexes[i]}].${expectations[i].kind}`;
  const named = (i: number) => `expect[${indexes[i]}]`;
  const replies = ofKind(expectations, 'reply');
  const counts = ofKind(expectations, 'replies');
  const nones = ofKind(expectations, 'none');
  for (const none of nones) {
    for (const reply of replies)
      out.push({
        path: where(none.i),
        message: `"none" expects no reply, but ${named(reply.i)} expects one ("reply"): the step cannot pass both`,
        fix: 'keep one of them: "reply" to check the answer, or "none" to check that the plugin stays silent',
      });
    for (const count of counts.filter((c) => c.body.count > 0))
      out.push({
        path: where(none.i),
        message: `"none" expects no reply, but ${named(count.i)} expects ${count.body.count} ("replies")`,
        fix: 'keep one of them: "replies" with "count": 0 says the same as "none"',
      });
  }
  for (const count of counts) {
    if (count.body.count === 0)
      for (const reply of replies)
        out.push({
          path: where(count.i),
          message: `"replies" expects none ("count": 0), but ${named(reply.i)} expects a reply`,
          fix: 'keep one of them, or give the number of replies the plugin writes',
        });
    const texts = new Set(replies.map((r) => r.body.text).filter((t) => t !== undefined));
    if (count.body.count > 0 && texts.size > count.body.count)
      out.push({
        path: where(count.i),
        message: `"replies" expects ${count.body.count}, but the step expects ${texts.size} different reply texts`,
        fix: 'make the count the number of replies the plugin writes, or expect fewer texts',
      });
    const other = counts.find((c) => c.i < count.i && c.body.count !== count.body.count);
    if (other)
      out.push({
        path: where(count.i),
        message: `"replies" expects ${count.body.count}, but ${named(other.i)} expects ${other.body.count}`,
        fix: 'keep one "replies" per step',
      });
  }
  for (const reply of replies)
    if (reply.body.text !== undefined && reply.body.pattern !== undefined)
      out.push({
        path: where(reply.i),
        message: '"reply" gives both "text" and "pattern": only "text" would be checked',
        fix: 'keep one: "text" for the exact reply, "pattern" for a reply that matches',
      });
  const deliveries = ofKind(expectations, 'delivery');
  for (const delivery of deliveries) {
    const b = delivery.body;
    if (b.count === 0) {
      const judged = (['status', 'retried', 'withinMs'] as const).filter((f) => b[f] !== undefined);
      if (judged.length)
        out.push({
          path: where(delivery.i),
          message: `"delivery" expects no delivery ("count": 0), so its ${judged.map((f) => `"${f}"`).join(' and ')} cannot be checked`,
          fix: `remove ${judged.map((f) => `"${f}"`).join(' and ')}, or expect the deliveries the step causes`,
        });
    }
    if (b.retried === false && !is2xx(b.status))
      out.push({
        path: where(delivery.i),
        message: `"delivery" expects the plugin to answer ${String(b.status)} and not to be retried, but an answer that is not a 2xx is retried`,
        fix: 'remove "retried": false, or expect "status": "2xx"',
      });
    if (b.type === 'WEBHOOK_CHALLENGE')
      out.push({
        path: `${where(delivery.i)}.type`,
        message:
          "a step's deliveries never include WEBHOOK_CHALLENGE: the platform sends it when the webhook URL is verified",
        fix: 'expect another event, or leave "type" out',
      });
    const other = deliveries.find(
      (d) =>
        d.i < delivery.i &&
        d.body.type === b.type &&
        ((d.body.count !== undefined && b.count !== undefined && d.body.count !== b.count) ||
          (d.body.status !== undefined && b.status !== undefined && d.body.status !== b.status)),
    );
    if (other)
      out.push({
        path: where(delivery.i),
        message: `"delivery" and ${named(other.i)} expect ${b.type ? `the ${String(b.type)} deliveries` : 'the deliveries'} to have a different ${other.body.count !== b.count && b.count !== undefined && other.body.count !== undefined ? '"count"' : '"status"'}`,
        fix: `keep one "delivery" ${b.type ? `of ${String(b.type)} ` : ''}per step, or give each a different "type"`,
      });
  }
  return out;
}

/** The expectations of one kind, each with its index among `expectations`. */
function ofKind<K extends ExpectationKind>(
  expectations: Expectation[],
  kind: K,
): Array<{ body: ExpectationBody<K>; i: number }> {
  return expectations.flatMap((expectation, i) =>
    isExpectationOf(expectation, kind) ? [{ body: expectation.body, i }] : [],
  );
}

/** The problems of one expectation's object (`"reply": { … }`) on a step of `kind`. */
function checkExpectation(
  name: ExpectationKind,
  body: unknown,
  at: string,
  kind: StepKind | null,
  stepBody: unknown,
  problems: ScenarioProblem[],
): void {
  for (const problem of schemaProblems(EXPECTATION_KINDS[name], body, at, name))
    problems.push(problem);
  if (NEEDS_MESSAGE.includes(name) && kind && kind !== 'message') {
    const event = kind === 'trigger' && isObject(stepBody) ? stepBody.event : undefined;
    if (kind !== 'trigger' || (typeof event === 'string' && event !== 'AGENT_MESSAGE_RECEIVED'))
      problems.push({
        path: at,
        message: `a ${kind === 'trigger' ? `trigger of ${String(event)}` : `${kind} step`} causes no reply to check`,
        fix: 'put reply, replies and none on a message step (or a trigger of AGENT_MESSAGE_RECEIVED)',
      });
  }
  if (!isObject(body)) return;
  if (name === 'reply' && typeof body.pattern === 'string') {
    const problem = linearPatternProblem(body.pattern);
    if (problem)
      problems.push({
        path: `${at}.pattern`,
        message: `not a pattern RE2 can run: ${problem}`,
        fix: 'fix the pattern (RE2 syntax: no backreferences or lookaround), or give "text" instead',
      });
  }
  if (name === 'file' && (body.written === undefined) === (body.updated === undefined))
    problems.push({
      path: at,
      message: 'a file expectation names either written or updated',
      fix: 'give one of "written": "name" or "updated": "name"',
    });
}
