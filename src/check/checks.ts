import { randomBytes } from 'node:crypto';
import { createWebhookEvent } from '../shared/webhooks/events.js';
import { challengeAnswerProblem } from '../shared/webhooks/challenge.js';
import { sampleData } from '../trigger/fixtures.js';
import { checkId, type DeliveryShape, type ProbeAnswer, type Prober } from './probe.js';
import type { SideEffectObserver } from './observer.js';
import type { CheckResult, LatencyReport } from './types.js';
import { CHECK_PROBE_EVENT_TYPE } from './probe-event.js';

/** What the battery runs against. */
export interface CheckContext {
  probe: Prober;
  secret: string;
  /** The plugin the events are addressed to (made-up ids when unknown). */
  plugin: { id: string; orgId: string; type: string | null };
  observer: SideEffectObserver | null;
  /** Why there is no observer, and how to get one. */
  observerReason: string | null;
  /** The platform's delivery timeout. */
  timeoutMs: number;
}

/** How far from now a timestamp may be (Standard Webhooks: 5 minutes). */
const TOLERANCE_SECONDS = 300;
/** The answer-time check's burst; 16 at a time is the platform's per-plugin concurrency. */
const BURST = { requests: 32, concurrency: 16 };

/** An event kind no platform sends (yet): a webhook must take it calmly. */
const UNKNOWN_EVENT_TYPE = CHECK_PROBE_EVENT_TYPE;

const REFUSE_FIX =
  'verify every delivery before acting on it and answer 401 when it fails: `createWebhookHandler({ secret, on })` or `verifyWebhook(rawBody, headers, secret)` from plugsmith/webhooks (or any Standard Webhooks library), over the raw body as received';

/** Runs the battery in order; each check is independent of the others' outcome. */
export async function runChecks(
  ctx: CheckContext,
): Promise<{ checks: CheckResult[]; latency: LatencyReport }> {
  const checks: CheckResult[] = [];
  const challenge = await challengeCheck(ctx);
  checks.push(challenge.result);
  // Nothing answered (refused, no such host, the timeout): every other check would fail the same way, each with a fix
  // about something else, and wait out its own timeout. Nothing more is sent; they are reported skipped.
  const unanswered = challenge.answer.status === null;
  if (unanswered) ctx.probe.stopSending();
  // Nor is the platform then asked to count messages: the checks only say what they would have sent.
  const next: CheckContext = unanswered ? { ...ctx, observer: null } : ctx;
  checks.push(await validDeliveryCheck(next));
  const tolerance = TOLERANCE_SECONDS;
  checks.push(
    await refusalCheck(
      next,
      'missing-signature',
      'refuses a delivery with no signature',
      'no webhook-signature header',
      { signature: 'none' },
      REFUSE_FIX,
    ),
  );
  checks.push(
    await refusalCheck(
      next,
      'wrong-signature',
      'refuses a delivery signed with another secret',
      "a signature made with a secret that is not the plugin's",
      { signature: 'wrong' },
      `${REFUSE_FIX}; check that the secret it uses is the plugin's webhookSecret`,
    ),
  );
  checks.push(
    await refusalCheck(
      next,
      'tampered-body',
      'refuses a body changed after signing',
      'a valid signature, then a field added to the body',
      { tamper: true },
      `${REFUSE_FIX}; verify the raw bytes received, before any JSON parsing or re-serialising`,
    ),
  );
  checks.push(
    await refusalCheck(
      next,
      'replayed-timestamp',
      `refuses a timestamp older than the tolerance (${tolerance} s): a replay`,
      `webhook-timestamp ${tolerance * 2} s in the past, validly signed`,
      { skewSeconds: -tolerance * 2 },
      `check webhook-timestamp against your clock and refuse anything more than ${tolerance} s old, or a captured delivery can be replayed for ever: createWebhookHandler and verifyWebhook from plugsmith/webhooks do (toleranceSeconds)`,
    ),
  );
  checks.push(
    await refusalCheck(
      next,
      'future-timestamp',
      `refuses a timestamp too far in the future (over ${tolerance} s)`,
      `webhook-timestamp ${tolerance * 2} s in the future, validly signed`,
      { skewSeconds: tolerance * 2 },
      `refuse timestamps more than ${tolerance} s ahead of your clock too, else a delivery signed now can be replayed later: createWebhookHandler and verifyWebhook from plugsmith/webhooks do`,
    ),
  );
  checks.push(await rotationCheck(next));
  checks.push(await duplicateCheck(next));
  checks.push(await unknownEventCheck(next));
  checks.push(await uninstallCheck(next));
  checks.push(await echoCheck(next));
  const { check, latency } = await latencyCheck(next);
  checks.push(check);
  if (!unanswered) return { checks, latency };
  const why = challenge.answer.error ?? 'no answer';
  const [first, ...rest] = checks;
  return {
    checks: [
      {
        ...first,
        fix: `start the webhook server at ${ctx.probe.url} (\`plugsmith dev\` starts the plugin), then run check again`,
      },
      ...rest.map((c) =>
        skippedAs(c, `not run: the webhook did not answer the challenge (${why})`),
      ),
    ],
    latency: { ...latency, requests: 0 },
  };
}

/** `check` reported as skipped for `reason`: what it would have sent, nothing received. */
function skippedAs(check: CheckResult, reason: string): CheckResult {
  return skipped(check.id, check.title, check.sent, reason);
}

function event(
  ctx: CheckContext,
  type: string,
  data: unknown,
  instanceId: string | null = null,
): Record<string, unknown> {
  return createWebhookEvent(type, {
    pluginId: ctx.plugin.id,
    pluginInstanceId: instanceId,
    orgId: ctx.plugin.orgId,
    data,
  });
}

function challengeEvent(ctx: CheckContext): { event: Record<string, unknown>; challenge: string } {
  const challenge = `chl_check_${randomBytes(12).toString('base64url')}`;
  return { event: event(ctx, 'WEBHOOK_CHALLENGE', { challenge }), challenge };
}

/** `HTTP 401 in 3 ms: {"ok":false,…}`, or why no answer came. */
function describeAnswer(answer: ProbeAnswer): string {
  if (answer.status === null) return answer.error ?? 'no answer';
  const body = answer.body.replace(/\s+/g, ' ').trim();
  return `HTTP ${answer.status} in ${Math.round(answer.durationMs)} ms${body ? `: ${body.length > 100 ? body.slice(0, 99) + '…' : body}` : ''}`;
}

const is2xx = (a: ProbeAnswer) => a.status !== null && a.status >= 200 && a.status <= 299;
const is4xx = (a: ProbeAnswer) => a.status !== null && a.status >= 400 && a.status <= 499;
const messages = (n: number) => `${n} message${n === 1 ? '' : 's'}`;

function result(
  id: string,
  title: string,
  passed: boolean,
  sent: string,
  received: string,
  fix: string,
): CheckResult {
  return {
    id,
    title,
    required: true,
    status: passed ? 'passed' : 'failed',
    sent,
    received,
    fix: passed ? null : fix,
  };
}

function skipped(id: string, title: string, sent: string, reason: string): CheckResult {
  return { id, title, required: true, status: 'skipped', sent, received: '-', fix: reason };
}

/** Sends a delivery and counts the messages it made the plugin write (null without an observer). */
async function sendCounting(
  ctx: CheckContext,
  body: Record<string, unknown>,
  shape: DeliveryShape = {},
): Promise<{ answer: ProbeAnswer; wrote: number | null }> {
  const before = ctx.observer ? await ctx.observer.writes() : 0;
  const answer = await ctx.probe.send(body, shape);
  return { answer, wrote: ctx.observer ? (await ctx.observer.writes()) - before : null };
}

async function challengeCheck(
  ctx: CheckContext,
): Promise<{ result: CheckResult; answer: ProbeAnswer }> {
  const title = 'answers WEBHOOK_CHALLENGE as the platform expects';
  const { event: body, challenge } = challengeEvent(ctx);
  const answer = await ctx.probe.send(body);
  const problem =
    answer.status === null
      ? answer.error
      : challengeAnswerProblem(
          { status: answer.status, contentType: answer.contentType, body: answer.body },
          challenge,
        );
  // Without an answer, the answer's description is the problem: said once.
  const received =
    answer.status === null
      ? describeAnswer(answer)
      : describeAnswer(answer) + (problem ? ` (${problem})` : '');
  return {
    answer,
    result: result(
      'challenge',
      title,
      problem === null,
      'a signed WEBHOOK_CHALLENGE',
      received,
      `answer 2xx with JSON {"challenge": "<data.challenge>"} (or text/plain with exactly the value): \`answerChallenge(event)\` from plugsmith/webhooks; createWebhookHandler does it for you`,
    ),
  };
}

async function validDeliveryCheck(ctx: CheckContext): Promise<CheckResult> {
  const title = 'accepts a valid delivery and does its work once';
  const sent = 'a signed AGENT_MESSAGE_RECEIVED about a real conversation';
  if (!ctx.observer)
    return skipped('valid-delivery', title, sent, ctx.observerReason ?? 'no platform to watch');
  const { answer, wrote } = await sendCounting(ctx, ctx.observer.messageEvent());
  const passed = is2xx(answer) && wrote === 1;
  return result(
    'valid-delivery',
    title,
    passed,
    sent,
    `${describeAnswer(answer)}; wrote ${messages(wrote ?? 0)} in ${ctx.observer.where}`,
    !is2xx(answer)
      ? "answer 2xx once the event is handled; anything else makes the platform retry it (see the answer above, and your plugin's log)"
      : 'write exactly one character message per AGENT_MESSAGE_RECEIVED, with the installation token from PLUGIN_INSTALLED (scope AGENT_MESSAGE_WRITE), before answering',
  );
}

async function refusalCheck(
  ctx: CheckContext,
  id: string,
  title: string,
  how: string,
  shape: DeliveryShape,
  fix: string,
): Promise<CheckResult> {
  const body = ctx.observer ? ctx.observer.messageEvent() : challengeEvent(ctx).event;
  const { answer, wrote } = await sendCounting(ctx, body, shape);
  const passed = is4xx(answer) && !wrote;
  const did = wrote === null ? '' : `; wrote ${messages(wrote)}`;
  const why =
    answer.status !== null && answer.status >= 500
      ? ' (a 5xx is taken for a failure and retried: refuse with 401)'
      : '';
  return result(
    id,
    title,
    passed,
    `${body.type} with ${how}`,
    describeAnswer(answer) + did + why,
    wrote ? `${fix}; and do no work before the delivery is verified` : fix,
  );
}

async function rotationCheck(ctx: CheckContext): Promise<CheckResult> {
  const { event: body, challenge } = challengeEvent(ctx);
  const answer = await ctx.probe.send(body, { signature: 'rotated' });
  const problem =
    answer.status === null
      ? answer.error
      : challengeAnswerProblem(
          { status: answer.status, contentType: answer.contentType, body: answer.body },
          challenge,
        );
  return result(
    'rotated-signatures',
    'accepts several signatures of which one is valid (secret rotation)',
    problem === null,
    "WEBHOOK_CHALLENGE with two space-separated v1 signatures: another secret's, then the plugin's",
    describeAnswer(answer),
    'accept a delivery when any one of the space-separated `v1,…` signatures in webhook-signature matches: during `plugins secret rotate` the platform signs with both secrets (plugsmith/webhooks does this; give it a list of secrets while you roll a new one out)',
  );
}

async function duplicateCheck(ctx: CheckContext): Promise<CheckResult> {
  const title = 'answers a duplicate delivery (same webhook-id) without doing the work twice';
  const sent = 'the same signed AGENT_MESSAGE_RECEIVED twice, same webhook-id';
  if (!ctx.observer)
    return skipped('duplicate-delivery', title, sent, ctx.observerReason ?? 'no platform to watch');
  const body = ctx.observer.messageEvent();
  const before = await ctx.observer.writes();
  const first = await ctx.probe.send(body);
  const second = await ctx.probe.send(body);
  const wrote = (await ctx.observer.writes()) - before;
  const passed = is2xx(first) && is2xx(second) && wrote === 1;
  return result(
    'duplicate-delivery',
    title,
    passed,
    sent,
    `first ${describeAnswer(first)}; second ${describeAnswer(second)}; wrote ${messages(wrote)}`,
    !is2xx(second) && is2xx(first)
      ? 'answer a delivery you have already handled with 2xx (it is done), or the platform retries it until it gives up'
      : 'the platform retries a delivery whose answer it did not get, with the same webhook-id (and event id): remember the ids you handled (or the message id) and skip the work the second time, answering 2xx',
  );
}

async function unknownEventCheck(ctx: CheckContext): Promise<CheckResult> {
  const body = ctx.observer
    ? ctx.observer.eventOfType(UNKNOWN_EVENT_TYPE, ctx.observer.messageEvent().data)
    : event(ctx, UNKNOWN_EVENT_TYPE, {});
  const { answer, wrote } = await sendCounting(ctx, body);
  return result(
    'unknown-event',
    'answers an unknown event kind with 2xx and does nothing',
    is2xx(answer) && !wrote,
    `a signed ${UNKNOWN_EVENT_TYPE}${ctx.observer ? " carrying a message's data" : ''}`,
    describeAnswer(answer) + (wrote === null ? '' : `; wrote ${messages(wrote)}`),
    'the platform adds event kinds over time: answer 2xx to a kind you do not handle and do nothing (a 4xx or 5xx is retried until the delivery is given up); branch on event.type, never assume it',
  );
}

async function uninstallCheck(ctx: CheckContext): Promise<CheckResult> {
  const instanceId = checkId('pin');
  const data = sampleData('PLUGIN_UNINSTALLED', {
    pluginId: ctx.plugin.id,
    orgId: ctx.plugin.orgId,
    pluginInstanceId: instanceId,
    entityType: 'AGENT',
    entityId: 'agent_check',
    events: [],
    scopes: [],
  });
  const answer = await ctx.probe.send(event(ctx, 'PLUGIN_UNINSTALLED', data, instanceId));
  return result(
    'uninstall-without-install',
    'handles PLUGIN_UNINSTALLED for an instance it never saw installed',
    is2xx(answer),
    `a signed PLUGIN_UNINSTALLED for ${instanceId}, never installed`,
    describeAnswer(answer),
    "events can arrive out of order, and an install can predate your plugin's storage: forget the instance if you know it and answer 2xx either way",
  );
}

async function echoCheck(ctx: CheckContext): Promise<CheckResult> {
  // An installation whose token the webhook is given, to look for in every answer of the run.
  const instanceId = checkId('pin');
  const token = `pit_check_${randomBytes(18).toString('base64url')}`;
  const known = {
    pluginId: ctx.plugin.id,
    orgId: ctx.plugin.orgId,
    pluginInstanceId: instanceId,
    entityType: 'AGENT',
    entityId: 'agent_check',
    events: [],
    scopes: [],
    accessToken: token,
  };
  await ctx.probe.send(
    event(ctx, 'PLUGIN_INSTALLED', sampleData('PLUGIN_INSTALLED', known), instanceId),
  );
  await ctx.probe.send(
    event(ctx, 'PLUGIN_UNINSTALLED', sampleData('PLUGIN_UNINSTALLED', known), instanceId),
  );
  const secrets = [token, ctx.secret, ctx.secret.replace(/^whsec_/, '')];
  const answerText = (a: ProbeAnswer) => a.body + JSON.stringify(a.headers);
  const leaks = ctx.probe.answers.filter((a) => secrets.some((s) => answerText(a).includes(s)));
  const what =
    leaks.length === 0
      ? ''
      : leaks.some((a) => answerText(a).includes(token))
        ? 'the installation token'
        : 'the webhook secret';
  return result(
    'no-secret-echo',
    'never echoes its installation token or secret in an answer',
    leaks.length === 0,
    `PLUGIN_INSTALLED with a made-up token (then its PLUGIN_UNINSTALLED); every answer of this run searched`,
    leaks.length === 0
      ? `none of ${ctx.probe.answers.length} answers held the token or the secret`
      : `${leaks.length} answer(s) held ${what}: ${describeAnswer(leaks[0]).replaceAll(token, '<token>')}`,
    'answer with a short status ({"ok": true}), never the event or your configuration: the platform logs answers (the delivery log shows them), so an echoed token or secret is disclosed to everyone who can read the log',
  );
}

async function latencyCheck(
  ctx: CheckContext,
): Promise<{ check: CheckResult; latency: LatencyReport }> {
  const { requests, concurrency } = BURST;
  const answers: ProbeAnswer[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      next++;
      answers.push(await ctx.probe.send(challengeEvent(ctx).event));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, worker));
  const times = answers
    .filter((a) => a.status !== null)
    .map((a) => a.durationMs)
    .sort((a, b) => a - b);
  const latency: LatencyReport = {
    requests,
    concurrency,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: percentile(times, 1),
    timeoutMs: ctx.timeoutMs,
  };
  const late = answers.filter((a) => a.status === null).length;
  const failed = answers.filter((a) => a.status !== null && !is2xx(a)).length;
  const passed = late === 0 && failed === 0;
  const received =
    `${requests - late} of ${requests} answered in time; p50 ${latency.p50Ms ?? '-'} ms, p99 ${latency.p99Ms ?? '-'} ms, max ${latency.maxMs ?? '-'} ms` +
    (failed ? `; ${failed} not 2xx` : '') +
    (late ? `; ${late} not within ${ctx.timeoutMs} ms` : '');
  return {
    check: result(
      'answer-time',
      `answers within the platform's delivery timeout (${ctx.timeoutMs / 1000} s), under a burst`,
      passed,
      `${requests} signed WEBHOOK_CHALLENGEs, ${concurrency} at a time (the platform's per-plugin concurrency)`,
      received,
      `an answer later than ${ctx.timeoutMs / 1000} s counts as a failure and the delivery is sent again: answer first and do slow work afterwards (a queue), and do not serialise requests behind one slow call`,
    ),
    latency,
  };
}

/** The q-th quantile (0..1) of sorted times by the nearest-rank method, rounded to a millisecond; null for none. */
function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return Math.round(sorted[rank - 1]);
}
