// Watching the delivery a chat message caused: the emulator's admin API is read for the
// AGENT_MESSAGE_RECEIVED delivery of that message, so a chat (and MCP's `send_chat_message`) can stop
// waiting for a reply as soon as the plugin failed the event, and say why it waited in vain otherwise.

import { setTimeout as wait } from 'node:timers/promises';
import type { PlatformClient } from '../client/index.js';
import type { Delivery, DeliveryAttempt } from '#contract';

/** The part of the client a watch uses: the emulator's admin API. */
export type DeliveryWatchClient = Pick<PlatformClient, 'emulator'>;

/** The message whose delivery is watched, and a time before it was sent (the log is read from then on). */
export interface WatchedMessage {
  conversationId: string;
  messageId: string;
  /** ISO 8601; a little before the message was posted. */
  sentAfter: string;
}

/** The first attempt of a delivery the message caused failed: the delivery as read (with `pluginOutput`) and that attempt. */
export interface DeliveryFailure {
  delivery: Delivery;
  attempt: DeliveryAttempt;
}

/** What a watch has seen so far, for the explanation of a reply that did not come. */
export interface DeliveryWatchState {
  /** False once the admin API could not be read (a remote platform, no admin token): nothing is known. */
  available: boolean;
  /** The deliveries the message caused, as last read (no plugin output). */
  deliveries: Delivery[];
}

export interface DeliveryWatchOptions {
  /** How often the log is read; default 50 ms (a local list answers in a few ms). */
  pollMs?: number;
  /** How long a failure waits for the plugin's output to reach the emulator; default 1,500 ms. */
  outputWaitMs?: number;
}

/** A running watch: `failure` resolves with the first failed attempt (never otherwise); `stop` ends the reading. */
export interface DeliveryWatch {
  readonly failure: Promise<DeliveryFailure>;
  state(): DeliveryWatchState;
  stop(): void;
}

/** Whether an answer status means the plugin accepted the event. */
export function accepted(attempt: DeliveryAttempt): boolean {
  return (
    attempt.responseStatus !== null && attempt.responseStatus >= 200 && attempt.responseStatus < 300
  );
}

/** Whether a logged delivery carries the event of this message. */
function isOf(delivery: Delivery, message: WatchedMessage): boolean {
  const data = (delivery.event as { data?: Record<string, unknown> }).data;
  const sent = data?.message as { id?: unknown } | undefined;
  return data?.conversationId === message.conversationId && sent?.id === message.messageId;
}

/**
 * Watches the AGENT_MESSAGE_RECEIVED deliveries a chat message caused (one per EVENT_HANDLER installed on the
 * character's agent) until stopped. `failure` resolves when the first attempt of one of them did not answer 2xx,
 * with the delivery read again for the plugin's output linked to that attempt (waited for up to `outputWaitMs`, as
 * the CLI that captures it sends it a moment later). When the admin API cannot be read (a remote platform), the
 * watch ends quietly: `state().available` is false and `failure` never resolves.
 */
export function watchMessageDelivery(
  client: DeliveryWatchClient,
  message: WatchedMessage,
  options: DeliveryWatchOptions = {},
): DeliveryWatch {
  const pollMs = options.pollMs ?? 50;
  const outputWaitMs = options.outputWaitMs ?? 1_500;
  const stopping = new AbortController();
  const state: DeliveryWatchState = { available: true, deliveries: [] };
  let fail: (failure: DeliveryFailure) => void = () => undefined;
  const failure = new Promise<DeliveryFailure>((resolve) => (fail = resolve));

  const run = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      const page = await client.emulator.deliveries.list(
        {
          filters: { type: 'AGENT_MESSAGE_RECEIVED' },
          since: message.sentAfter,
          sortBy: 'createdAt',
          sortOrder: 'desc',
          limit: 100,
        },
        { signal: stopping.signal },
      );
      state.deliveries = page.data.filter((d) => isOf(d, message));
      const failed = state.deliveries.find((d) => d.attempts[0] && !accepted(d.attempts[0]));
      if (failed) {
        fail(
          await readFailedAttempt(client, failed, {
            number: 1,
            waitMs: outputWaitMs,
            signal: stopping.signal,
          }),
        );
        return;
      }
      await wait(pollMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  };
  void run().catch(() => {
    // A platform without the admin API, no admin credential, an emulator gone: nothing (more) to watch.
    if (!stopping.signal.aborted) state.available = false;
  });
  return { failure, state: () => state, stop: () => stopping.abort() };
}

/**
 * A failed delivery read again (GET /_emulator/deliveries/:id) until attempt `number` (default: its last) has the
 * plugin's output linked and it stopped growing, or `waitMs` (default 1,500 ms) passed: the CLI that captures the
 * plugin's output sends it to the emulator a moment after the plugin wrote it. A read that fails keeps what was had.
 */
export async function readFailedAttempt(
  client: DeliveryWatchClient,
  delivery: Delivery,
  options: { number?: number; waitMs?: number; signal?: AbortSignal } = {},
): Promise<DeliveryFailure> {
  const number = options.number ?? delivery.attempts.length;
  const attemptOf = (d: Delivery) =>
    d.attempts.find((a) => a.number === number) ?? d.attempts[d.attempts.length - 1];
  const deadline = Date.now() + (options.waitMs ?? 1_500);
  let read: Delivery = delivery;
  let lines = -1;
  for (;;) {
    read = await client.emulator.deliveries
      .get(delivery.id, { signal: options.signal })
      .catch(() => read);
    const count = attemptOf(read)?.pluginOutput?.length ?? 0;
    // Two reads alike, with some lines: the plugin's lines about this attempt have arrived.
    if (count > 0 && count === lines) break;
    lines = count;
    if (Date.now() >= deadline || options.signal?.aborted) break;
    await wait(count > 0 ? 100 : 50, undefined, { signal: options.signal }).catch(() => undefined);
  }
  return { delivery: read, attempt: attemptOf(read) };
}

/** The command that shows a delivery whole, its attempts and the plugin's output beside each. */
export function logsCommandOf(deliveryId: string): string {
  return `plugsmith logs ${deliveryId}`;
}

/** Why no reply came within `seconds`: said the same way by `trigger`, `chat` and MCP. */
export function noReplyExplanation(
  conversationId: string,
  seconds: number,
  state?: DeliveryWatchState,
): string {
  const write =
    '(an EVENT_HANDLER answers with AGENT_MESSAGE_WRITE: POST /api/agents/:agentId/conversations/:conversationId/messages)';
  if (!state?.available)
    return `no reply in conversation ${conversationId} within ${seconds}s: the message was sent, but whether a plugin received it cannot be read here (the emulator's delivery log, \`plugsmith logs\`, tells) ${write}`;
  const delivered = state.deliveries.filter((d) => d.attempts[0] && accepted(d.attempts[0]));
  if (delivered.length > 0) {
    const ids = delivered.map((d) => `${d.id} (HTTP ${d.attempts[0].responseStatus})`).join(', ');
    return `the plugin accepted the event but wrote no message in conversation ${conversationId} within ${seconds}s: delivery ${ids} ${write}`;
  }
  const held = state.deliveries.find((d) => d.heldSince);
  if (held)
    return `no reply in conversation ${conversationId} within ${seconds}s: delivery ${held.id} is held until its plugin is up (plugsmith dev is starting or restarting it)`;
  const waiting = state.deliveries.find((d) => d.attempts.length === 0);
  if (waiting)
    return `no reply in conversation ${conversationId} within ${seconds}s: delivery ${waiting.id} has had no attempt yet (\`${logsCommandOf(waiting.id)}\`)`;
  return `no reply in conversation ${conversationId} within ${seconds}s, and no AGENT_MESSAGE_RECEIVED delivery of the message in the emulator's log: is an EVENT_HANDLER plugin installed on the character's agent, subscribed to AGENT_MESSAGE_RECEIVED?`;
}
