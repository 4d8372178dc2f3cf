import type { DeliveryAttempt, PluginOutputLine } from '#contract';

// The plugin's own output (the stdout and stderr lines of the process plugsmith runs as the plugin) as an agent reads
// it: always under an `untrusted` field, each line cut to a length, and as many lines as fit an answer's share of the cap.

/** How many characters of one line an answer carries; a longer line is cut, saying how much was left out. */
export const OUTPUT_LINE_CHARS = 1_000;

/**
 * How many characters of JSON the plugin's output may take in an answer about a delivery, well within MAX_ANSWER_CHARS
 * (src/mcp/shape.ts): the rest of the delivery (its event, headers and bodies) has room beside it.
 */
export const DELIVERY_OUTPUT_CHARS = 12_000;

/** The text of a line, cut to OUTPUT_LINE_CHARS with the same mark as every cut field of an answer. */
export function cutLine(text: string): string {
  if (text.length <= OUTPUT_LINE_CHARS) return text;
  const left = text.length - OUTPUT_LINE_CHARS;
  return `${text.slice(0, OUTPUT_LINE_CHARS)}[… ${left} more characters left out]`;
}

/** What one line takes in an answer (pretty-printed, a few levels deep, with its indentation). */
export function sizeInAnswer(value: unknown): number {
  return JSON.stringify(value, null, 2).length + 16 * 6;
}

/** A line of the plugin's output linked to an attempt, as shown: when it was read, from which stream, its text (cut). */
export function linkedLineOf(line: PluginOutputLine) {
  return { at: line.at, stream: line.stream, text: cutLine(line.text) };
}

/** The lines of one attempt's output an answer carries, and how many of the attempt's lines were left out to fit. */
export interface AttemptOutput {
  lines: ReturnType<typeof linkedLineOf>[];
  leftOut: number;
}

/**
 * Each attempt's linked output, fitted into `budget` characters: the newest attempt first (its output is what the
 * agent is after), each attempt's lines oldest first (an error's message comes before its stack) until one does not
 * fit. Returns one entry per attempt, in the attempts' order.
 */
export function fitAttemptOutput(
  attempts: readonly DeliveryAttempt[],
  budget = DELIVERY_OUTPUT_CHARS,
): AttemptOutput[] {
  let left = budget;
  const fitted: AttemptOutput[] = attempts.map(() => ({ lines: [], leftOut: 0 }));
  for (let index = attempts.length - 1; index >= 0; index--) {
    const output = attempts[index].pluginOutput ?? [];
    const entry = fitted[index];
    for (const line of output) {
      const shown = linkedLineOf(line);
      const size = sizeInAnswer(shown);
      if (entry.leftOut > 0 || size > left) {
        entry.leftOut += 1;
        continue;
      }
      entry.lines.push(shown);
      left -= size;
    }
  }
  return fitted;
}

/** An attempt as deliveryDetail shapes it, for what a summary says of its output. */
interface ShapedAttempt {
  number: number;
  startedAt: string;
  pluginOutputLines?: number;
  pluginOutputLeftOut?: number;
}

/**
 * What a result's summary says of the plugin's output beside a delivery's attempts: where the lines are, which were
 * left out and the tool that reads them all, or that none is linked and why that may be.
 */
export function outputNote(delivery: { pluginId: string; attemptList: ShapedAttempt[] }): string {
  const shown = delivery.attemptList.filter((a) => a.pluginOutputLines !== undefined);
  if (shown.length === 0) return '';
  const withLines = shown.filter((a) => (a.pluginOutputLines ?? 0) > 0);
  if (withLines.length === 0)
    return ` No output of the plugin is linked to ${shown.length === 1 ? 'its attempt' : 'its attempts'}: plugsmith captures it only while it runs the plugin (plugsmith dev, scenario run --start); follow_plugin_output reads whatever the plugin wrote.`;
  const where = withLines
    .map((a) => `${a.pluginOutputLines} line(s) of attempt ${a.number}`)
    .join(', ');
  const cut = withLines.filter((a) => (a.pluginOutputLeftOut ?? 0) > 0);
  const rest = cut
    .map(
      (a) =>
        ` ${a.pluginOutputLeftOut} line(s) of attempt ${a.number} were left out to fit the answer: follow_plugin_output with pluginId "${delivery.pluginId}" and cursor "${a.startedAt}" reads everything the plugin wrote since.`,
    )
    .join('');
  return ` The plugin's own output (stdout/stderr) is under each attempt's untrusted.pluginOutput: ${where}.${rest}`;
}
