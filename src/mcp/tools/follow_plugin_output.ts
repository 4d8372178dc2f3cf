import { setTimeout as wait } from 'node:timers/promises';
import { z } from 'zod';
import type { PlatformClient } from '../../client/index.js';
import { UserError } from '../../errors.js';
import type { PluginOutputPage } from '#contract';
import { OUTPUT_MAX_BATCH } from '../../shared/plugin-output.js';
import { pluginIdOf } from '../connection.js';
import { cutLine, sizeInAnswer } from '../plugin-output.js';
import { MAX_ANSWER_CHARS, result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

/** Room an answer keeps beside its lines (the summary, the other fields, the notes of result()). */
const ANSWER_ROOM = 3_000;

type NumberedLine = PluginOutputPage['lines'][number];

/** Where to read from: after a line number (a `next`), or the first line read at or after a time. */
type Start = { after: number } | { since: string } | { newest: true };

/** The cursor as given: `next` of the previous call (a number, or its digits), or an ISO time. */
function startOf(cursor: number | string | undefined): Start {
  if (cursor === undefined) return { newest: true };
  if (typeof cursor === 'number') return { after: cursor };
  if (/^\d{1,15}$/.test(cursor)) return { after: Number(cursor) };
  const parsed = Date.parse(cursor);
  if (Number.isNaN(parsed))
    throw new UserError(
      `cursor ${JSON.stringify(cursor)} is neither a \`next\` of follow_plugin_output nor an ISO time: pass the next of the previous call, an attempt's startedAt (get_delivery), or call without cursor to start`,
    );
  return { since: new Date(parsed).toISOString() };
}

/** Every line the emulator keeps of the plugin after line `after`, oldest first, and how many fell out unread. */
async function readAll(
  client: PlatformClient,
  pluginId: string,
  after: number,
): Promise<{ lines: NumberedLine[]; dropped: number }> {
  const lines: NumberedLine[] = [];
  let dropped = 0;
  let cursor = after;
  for (;;) {
    const page = await client.emulator.pluginOutput.read(pluginId, {
      after: cursor,
      limit: OUTPUT_MAX_BATCH,
    });
    if (cursor === after) dropped = page.dropped;
    lines.push(...page.lines);
    if (!page.hasMore || page.next === cursor) return { lines, dropped };
    cursor = page.next;
  }
}

/** What was read: the lines after the start, oldest first, and what the answer says beside them. */
interface Read {
  lines: NumberedLine[];
  /** Whether the emulator keeps lines after the last of `lines`. */
  more: boolean;
  /** Lines after the cursor that fell out of the emulator's bounded output unread. */
  dropped: number;
  /** Lines kept before the newest `limit` (a call without cursor). */
  older: number;
  /** The cursor when no line is returned: where the output ends now. */
  end: number;
}

/** The lines after the start, oldest first (without cursor: the newest `limit` kept). */
async function linesFrom(
  client: PlatformClient,
  pluginId: string,
  start: Start,
  limit: number,
): Promise<Read> {
  if ('after' in start) {
    const page = await client.emulator.pluginOutput.read(pluginId, { after: start.after, limit });
    return {
      lines: page.lines,
      more: page.hasMore,
      dropped: page.dropped,
      older: 0,
      end: page.next,
    };
  }
  const { lines } = await readAll(client, pluginId, 0);
  const end = lines.at(-1)?.seq ?? 0;
  if ('since' in start) {
    const since = lines.filter((line) => line.at >= start.since);
    return { lines: since.slice(0, limit), more: since.length > limit, dropped: 0, older: 0, end };
  }
  const kept = lines.slice(-limit);
  return { lines: kept, more: false, dropped: 0, older: lines.length - kept.length, end };
}

export const followPluginOutput = defineTool({
  name: 'follow_plugin_output',
  title: "Follow the plugin's output",
  description:
    "The plugin process's own stdout and stderr (what plugsmith dev or scenario run --start captured while running it: its logs, the errors it threw and their stacks), line by line after a cursor, oldest first, at most limit per call, and the cursor to pass next time: call again with next until hasMore is false, none is skipped. Call without a cursor to start (you get the newest lines; cursor 0 reads everything kept), or with an attempt's startedAt (get_delivery) to read from then. waitSeconds waits for a line when none is new. The lines are the plugin's text, under untrusted; secrets are redacted.",
  inputSchema: {
    cursor: z
      .union([z.number().int().min(0), z.string().min(1)])
      .optional()
      .describe('next of the previous call, 0 for every line kept, or an ISO time to start from'),
    pluginId: z.string().optional().describe("default: this project's plugin"),
    limit: z.number().int().min(1).max(OUTPUT_MAX_BATCH).default(100),
    waitSeconds: z
      .number()
      .min(0)
      .max(30)
      .default(0)
      .describe('when no line is new, wait up to this long for one'),
  },
  outputSchema: {
    pluginId: z.string(),
    lines: z.array(anyObject),
    next: z.number(),
    hasMore: z.boolean(),
    dropped: z.number(),
  },
  annotations: READ_ONLY,
  async run(args, connection) {
    const pluginId = await pluginIdOf(connection, args.pluginId);
    const start = startOf(args.cursor);
    const client = connection.client;
    let read = await linesFrom(client, pluginId, start, args.limit);
    const deadline = Date.now() + args.waitSeconds * 1000;
    // A local read answers in a few ms: a short poll keeps a line's wait well under 100 ms.
    while (read.lines.length === 0 && Date.now() < deadline) {
      await wait(25);
      read = await linesFrom(client, pluginId, start, args.limit);
    }
    // As many lines as fit the answer's cap: `next` is the last one returned, so none is skipped.
    const shown: Array<{ seq: number; at: string; stream: string; untrusted: { text: string } }> =
      [];
    let room = MAX_ANSWER_CHARS - ANSWER_ROOM;
    for (const line of read.lines) {
      const one = {
        seq: line.seq,
        at: line.at,
        stream: line.stream,
        untrusted: { text: cutLine(line.text) },
      };
      room -= sizeInAnswer(one);
      if (room < 0 && shown.length > 0) break;
      shown.push(one);
    }
    const cut = shown.length < read.lines.length;
    const hasMore = read.more || cut;
    const next = shown.at(-1)?.seq ?? read.end;
    const parts: string[] = [];
    if (shown.length === 0)
      parts.push(
        `No line of plugin ${pluginId}'s output after the cursor. Its output is captured only while plugsmith runs the plugin (plugsmith dev, scenario run --start).`,
      );
    else
      parts.push(
        `${shown.length} line(s) of plugin ${pluginId}'s own output, oldest first (its text is under untrusted).`,
      );
    if (hasMore)
      parts.push(
        `More follow${cut ? ' (this page was cut to fit the answer)' : ''}: call again with cursor ${next}.`,
      );
    if (read.dropped > 0)
      parts.push(
        `${read.dropped} line(s) after the cursor fell out of the emulator's bounded output before they were read.`,
      );
    if (read.older > 0)
      parts.push(`${read.older} older line(s) are kept: cursor 0 reads from the oldest.`);
    return result(
      parts.join(' '),
      { pluginId, lines: shown, next, hasMore, dropped: read.dropped },
      connection.credentials,
    );
  },
});
