import type { DeliveryAttempt, PluginOutputLine } from '#contract';
import type { NumberedLine } from '#shared/plugin-output';

/**
 * A line read up to this long after an attempt's answer still counts as written before it: plugsmith reads the plugin's
 * pipe in its own event loop, which also runs the emulator `dev` started, so a line the plugin wrote just before
 * answering may be read after the answer; on a busy machine (a CI job's parallel tests) 25 ms was too little, and a
 * handler's stack trace went unlinked.
 */
export const ANSWER_SLACK_MS = 100;
/** At most this many lines per attempt (the newest). */
export const MAX_LINES_PER_ATTEMPT = 200;

/**
 * The lines of the plugin's output that belong to each attempt of a delivery, by the rule of docs/emulator-behaviour.md:
 * a line read between the attempt's send and its answer (plus ANSWER_SLACK_MS) belongs to it; a line that names the
 * delivery's event id or the attempt's `webhook-id` belongs to the latest attempt sent before it was read (the first if
 * none was), unless it was read once a later delivery of the same event (a redelivery) had been made
 * (`namingUntil`): from then on a line naming the event is that delivery's. Returns one list per attempt, in the
 * attempts' order, each oldest first.
 */
export function linkOutput(
  delivery: { eventId: string; attempts: DeliveryAttempt[] },
  lines: NumberedLine[],
  options: { namingUntil?: number } = {},
): PluginOutputLine[][] {
  const namingUntil = options.namingUntil ?? Number.POSITIVE_INFINITY;
  const windows = delivery.attempts.map((attempt) => {
    const start = Date.parse(attempt.startedAt);
    return {
      start,
      end: start + attempt.durationMs + ANSWER_SLACK_MS,
      ids: [delivery.eventId, attempt.requestHeaders?.['webhook-id']].filter(
        (id): id is string => typeof id === 'string' && id !== '',
      ),
    };
  });
  const linked: PluginOutputLine[][] = windows.map(() => []);
  if (windows.length === 0) return linked;
  const first = windows[0].start;
  for (const line of lines) {
    const at = Date.parse(line.at);
    // Nothing the plugin wrote before the first send is about this delivery.
    if (at < first) continue;
    let owner = -1;
    for (let i = windows.length - 1; i >= 0; i--) {
      if (at >= windows[i].start && at <= windows[i].end) {
        owner = i;
        break;
      }
    }
    if (owner < 0) {
      if (at >= namingUntil) continue;
      const names = windows.some((w) => w.ids.some((id) => line.text.includes(id)));
      if (!names) continue;
      owner = latestStartedBefore(windows, at);
    }
    linked[owner].push({ at: line.at, stream: line.stream, text: line.text });
  }
  return linked.map((list) => list.slice(-MAX_LINES_PER_ATTEMPT));
}

function latestStartedBefore(windows: Array<{ start: number }>, at: number): number {
  for (let i = windows.length - 1; i >= 0; i--) if (windows[i].start <= at) return i;
  return 0;
}
