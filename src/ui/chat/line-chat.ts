import { createInterface } from 'node:readline';
import { UserError } from '../../errors.js';
import type { Io } from '../io.js';
import { describeChatError } from './chat-errors.js';
import type { ChatSession, ChatUpdate } from './chat-session.js';

interface LineChatOptions {
  /** NDJSON on stdout: one line per update. */
  json: boolean;
  quiet: boolean;
  /** Send only this message (otherwise every line of stdin is one). */
  message?: string;
}

/** The chat without a terminal: each stdin line (or `--message`) sent in turn, its reply printed as it grows; `--json`: an update a line. */
export async function runLineChat(
  session: ChatSession,
  io: Io,
  options: LineChatOptions,
): Promise<void> {
  const stop = session.on((update) => print(io, options, update));
  try {
    await step(session, () => session.start());
    const lines =
      options.message !== undefined
        ? [options.message]
        : createInterface({ input: io.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
      // Blank lines are not messages (the platform refuses empty text): skip them.
      if (line.trim() === '') continue;
      await step(session, () => session.send(line));
      if (!options.json) io.stdout.write('\n');
    }
  } finally {
    stop();
  }
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

function print(io: Io, options: LineChatOptions, update: ChatUpdate): void {
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
  }
}
