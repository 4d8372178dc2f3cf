import { setTimeout as sleep } from 'node:timers/promises';
import type { PluginOutputLine } from '#contract/plugin-output';
import type { PlatformClient } from '../client/index.js';

// What the plugin wrote while a scenario ran, as the emulator keeps it (captured by `plugsmith dev`
// or `--start`): the run's lines, and the lines linked to a failed expectation's delivery. A remote
// platform, or an emulator that answers no admin request, keeps none.

/** The most lines of the plugin's output a run result keeps (the newest), and a failure (its delivery's). */
const MAX_RUN_OUTPUT_LINES = 1000;
const MAX_FAILURE_OUTPUT_LINES = 50;
/** How long a failure waits for its delivery's output to arrive, and a run for the plugin's last lines. */
const OUTPUT_WAIT_MS = 1000;
const OUTPUT_SETTLE_MS = 100;
/** How often a failure's delivery is read again while its output has not arrived. */
const OUTPUT_POLL_MS = 50;

/**
 * Where the plugin's kept output ends now (the cursor `pluginOutput.read` goes on from), or undefined where the target
 * keeps none: a remote platform, or an emulator that answers no admin request.
 */
export async function outputCursor(
  client: PlatformClient,
  pluginId: string,
): Promise<number | undefined> {
  try {
    let after = 0;
    for (;;) {
      const page = await client.emulator.pluginOutput.read(pluginId, { after });
      after = page.next;
      if (!page.hasMore) return after;
    }
  } catch {
    return undefined;
  }
}

/** The lines the plugin wrote after `from`, oldest first, the newest {@link MAX_RUN_OUTPUT_LINES} of them. */
export async function outputSince(
  client: PlatformClient,
  pluginId: string,
  from: number,
): Promise<PluginOutputLine[] | undefined> {
  const lines: PluginOutputLine[] = [];
  // The last lines reach the emulator a moment after the plugin wrote them.
  await sleep(OUTPUT_SETTLE_MS);
  try {
    let after = from;
    for (;;) {
      const page = await client.emulator.pluginOutput.read(pluginId, { after });
      for (const line of page.lines)
        lines.push({ at: line.at, stream: line.stream, text: line.text });
      after = page.next;
      if (!page.hasMore) break;
    }
  } catch {
    return undefined;
  }
  return lines.slice(-MAX_RUN_OUTPUT_LINES);
}

/** The plugin's output linked to a delivery's attempts (empty where none is kept). */
export async function deliveryOutput(
  client: PlatformClient,
  deliveryId: string,
  pause: (ms: number) => Promise<void>,
): Promise<PluginOutputLine[]> {
  // The plugin's lines reach the emulator a moment after its answer (dev reads its pipe and posts them): a failure
  // seen at once waits that moment for them.
  const deadline = Date.now() + OUTPUT_WAIT_MS;
  for (;;) {
    const delivery = await client.emulator.deliveries.get(deliveryId).catch(() => undefined);
    if (!delivery) return [];
    const lines = delivery.attempts.flatMap((attempt) => attempt.pluginOutput ?? []);
    if (lines.length > 0 || Date.now() >= deadline) return lines.slice(-MAX_FAILURE_OUTPUT_LINES);
    await pause(OUTPUT_POLL_MS);
  }
}
