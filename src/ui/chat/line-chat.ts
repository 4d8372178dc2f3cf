import { createInterface } from 'node:readline';
import { attemptOutputLines, deliverySummary } from '../../dev/delivery-view.js';
import {
  logsCommandOf,
  noReplyExplanation,
  type DeliveryFailure,
  type DeliveryWatch,
  type WatchedMessage,
} from '../../delivery-watch/index.js';
import { EXIT, UserError } from '../../errors.js';
import { escapeControl } from '../../shared/plugin-output.js';
import { shorten } from '../output.js';
import type { Io } from '../io.js';
import type { Style } from '../style.js';
import { describeChatError } from './chat-errors.js';
import type { ChatSession, ChatUpdate } from './chat-session.js';

interface LineChatOptions {
  /** NDJSON on stdout: one line per update. */
  json: boolean;
  quiet: boolean;
  /** Send only this message (otherwise every line of stdin is one). */
  message?: string;
  /** How long each reply is waited for (`--timeout`); unbounded when absent. */
  replyTimeoutMs?: number;
  /** Watches the delivery a message caused (the emulator's admin API); absent against a remote platform. */
  watch?: (message: WatchedMessage) => DeliveryWatch;
  style?: Pick<Style, 'dim' | 'red'>;
}

/** The chat without a terminal: each stdin line (or `--message`) sent in turn, its reply printed as it grows; `--json`: an update a line. */
export async function runLineChat(
  session: ChatSession,
  io: Io,
  options: LineChatOptions,
): Promise<void> {
  const reply: ReplyLine = { open: false };
  const stop = session.on((update) => print(io, options, update, reply));
  try {
    await step(session, () => session.start());
    const lines =
      options.message !== undefined
        ? [options.message]
        : createInterface({ input: io.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
      // Blank lines are not messages (the platform refuses empty text): skip them.
      if (line.trim() === '') continue;
      await step(session, () => sendOne(session, io, options, line, reply));
      if (!options.json) io.stdout.write('\n');
      reply.open = false;
    }
  } finally {
    stop();
  }
}

/** Whether a reply's text is on stdout without its newline yet: a failure or a timeout ends that line, and prints no empty one. */
interface ReplyLine {
  open: boolean;
}

/** Ends the reply's line on stdout, if one was begun. */
function endReplyLine(io: Io, reply: ReplyLine): void {
  if (reply.open) io.stdout.write('\n');
  reply.open = false;
}

type Outcome =
  | { kind: 'reply' }
  | { kind: 'failed'; failure: DeliveryFailure }
  | { kind: 'timeout' };

/**
 * Sends one message and waits for its reply, but no longer than `replyTimeoutMs`, and not at all once the delivery
 * the message caused failed its first attempt: both end the chat with a user error (the failure printed first).
 */
async function sendOne(
  session: ChatSession,
  io: Io,
  options: LineChatOptions,
  line: string,
  reply: ReplyLine,
): Promise<void> {
  // The log is read from a little before the message is posted (the emulator's clock is this machine's).
  const sentAfter = new Date(Date.now() - 1_000).toISOString();
  let watch: DeliveryWatch | undefined;
  let failed: (failure: DeliveryFailure) => void = () => undefined;
  const failure = new Promise<Outcome>((resolve) => {
    failed = (f) => resolve({ kind: 'failed', failure: f });
  });
  const stopListening = session.on((update) => {
    if (update.type !== 'USER_MESSAGE_SENT' || watch || !options.watch) return;
    watch = options.watch({
      conversationId: update.message.conversationId,
      messageId: update.message.id,
      sentAfter,
    });
    void watch.failure.then(failed);
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Outcome>((resolve) => {
    if (options.replyTimeoutMs !== undefined)
      timer = setTimeout(() => resolve({ kind: 'timeout' }), options.replyTimeoutMs);
  });
  const answered = session.send(line);
  // Given up on (a failure, the time): the session's close ends the wait, which is no news then.
  answered.catch(() => undefined);
  try {
    const outcome = await Promise.race([
      answered.then((): Outcome => ({ kind: 'reply' })),
      failure,
      timedOut,
    ]);
    if (outcome.kind === 'failed') throw failureError(io, options, outcome.failure, reply);
    if (outcome.kind === 'timeout') {
      const seconds = (options.replyTimeoutMs ?? 0) / 1000;
      const conversationId = session.conversationId ?? '';
      const state = watch?.state();
      const reason = noReplyExplanation(conversationId, seconds, state);
      if (options.json)
        io.stdout.write(
          `${JSON.stringify({
            type: 'NO_REPLY',
            conversationId,
            timeoutSeconds: seconds,
            deliveries: (state?.deliveries ?? []).map((d) => ({
              id: d.id,
              pluginId: d.pluginId,
              status: d.status,
              responseStatus: d.attempts[0]?.responseStatus ?? null,
            })),
            reason,
          })}\n`,
        );
      else endReplyLine(io, reply);
      throw new UserError(
        `${reason}; --timeout changes how long a reply is waited for`,
        EXIT.NETWORK,
      );
    }
  } finally {
    stopListening();
    watch?.stop();
    clearTimeout(timer);
  }
}

/** Prints a failed attempt (the status, the answer, the plugin's own output) and makes the error that ends the chat. */
function failureError(
  io: Io,
  options: LineChatOptions,
  failure: DeliveryFailure,
  reply: ReplyLine,
): UserError {
  const { delivery, attempt } = failure;
  const logs = logsCommandOf(delivery.id);
  const answer =
    attempt.responseStatus !== null
      ? `HTTP ${attempt.responseStatus}`
      : (attempt.error ?? 'no answer');
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify({
        type: 'DELIVERY_FAILED',
        delivery: {
          id: delivery.id,
          eventId: delivery.eventId,
          pluginId: delivery.pluginId,
          pluginInstanceId: delivery.pluginInstanceId,
          status: delivery.status,
          nextAttemptAt: delivery.nextAttemptAt,
        },
        attempt: {
          number: attempt.number,
          responseStatus: attempt.responseStatus,
          responseBody: attempt.responseBody,
          error: attempt.error,
          durationMs: attempt.durationMs,
          pluginOutput: attempt.pluginOutput ?? [],
        },
        logsCommand: logs,
      })}\n`,
    );
  } else {
    endReplyLine(io, reply);
    const lines = [deliverySummary(delivery)];
    if (attempt.responseBody)
      lines.push(`    answer: ${escapeControl(shorten(attempt.responseBody, 200))}`);
    lines.push(...attemptOutputLines(attempt, options.style));
    io.stderr.write(`${lines.join('\n')}\n`);
  }
  return new UserError(
    `plugin ${delivery.pluginId} failed the AGENT_MESSAGE_RECEIVED event of the message (${answer}, delivery ${delivery.id}): \`${logs}\` shows it whole`,
    EXIT.UNEXPECTED,
  );
}

/** Runs one step of the chat; the errors people can act on become user errors with their cure. */
function step<T>(session: ChatSession, work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    const problem = describeChatError(error, {
      characterId: session.characterId ?? session.conversation?.characterId,
      conversationId: session.conversationId,
    });
    throw problem ? new UserError(problem.message, problem.exitCode) : error;
  });
}

function print(io: Io, options: LineChatOptions, update: ChatUpdate, reply: ReplyLine): void {
  if (update.type === 'NOTICE') {
    if (update.level !== 'info' || !(options.quiet || options.json))
      io.stderr.write(`${update.level === 'info' ? '' : `${update.level}: `}${update.text}\n`);
    return;
  }
  if (options.json) {
    // The conversation line leaves out the messages so far: `plugsmith messages list` has them.
    const line =
      update.type === 'CONVERSATION_STARTED'
        ? { type: update.type, conversation: update.conversation }
        : update;
    io.stdout.write(JSON.stringify(line) + '\n');
    return;
  }
  if (update.type === 'CONVERSATION_STARTED') {
    if (!options.quiet)
      io.stderr.write(
        `conversation ${update.conversation.id} with ${update.conversation.characterId ?? 'the character'}\n`,
      );
  } else if (update.type === 'CHARACTER_MESSAGE_SENT') {
    io.stdout.write(update.contentDelta);
    if (update.contentDelta !== '') reply.open = true;
  }
}
