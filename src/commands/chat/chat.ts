import type { RunCommand, CommandInput, TargetFlags } from '../types.js';
import { printRows, timeoutMsOf, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { ChatSession } from '../../ui/chat/chat-session.js';
import { runLineChat } from '../../ui/chat/line-chat.js';
import { LIST_CHARACTERS_COMMAND } from '../../ui/chat/chat-errors.js';
import { listCharacters } from './list-characters.js';
import { watchMessageDelivery } from '../../delivery-watch/index.js';
import { styleFor } from '../../ui/style.js';

interface ChatOptions {
  conversation?: string;
  message?: string;
  listCharacters?: boolean;
  org?: string;
}

/**
 * `plugsmith chat`: the ink REPL at a terminal (TTYs, not CI, no --json or --message), else the line mode;
 * ink and react are imported for the REPL only, so every other command starts without them.
 */
const chat: RunCommand<ChatOptions & TargetFlags> = async (input) => {
  const o = input.options;
  if (o.listCharacters) return printCharacters(input);
  const characterId = input.args[0] as string | undefined;
  const repl = input.io.interactive && !input.global.json && o.message === undefined;
  if (o.message !== undefined && o.message.trim() === '')
    throw new UserError('--message is empty: pass the text to send', EXIT.USAGE);
  if (characterId === undefined && o.conversation === undefined && !repl) {
    throw new UserError(
      `missing characterId: pass it, \`plugsmith chat <characterId>\` (or --conversation ID); \`${LIST_CHARACTERS_COMMAND}\` lists them`,
      EXIT.USAGE,
    );
  }
  await withClient(input, { apiKey: true, messaging: true }, async (client, settings) => {
    if (repl) {
      const { runChatApp } = await import('../../ui/chat/run-chat-app.js');
      await runChatApp({
        client,
        io: input.io,
        characterId,
        conversationId: o.conversation,
        // A picker needs the emulator's admin API, on the management URL.
        listCharacters: settings.baseUrl ? () => listCharacters(client, settings.orgId) : undefined,
      });
      return;
    }
    const session = new ChatSession(client, characterId, { conversationId: o.conversation });
    try {
      await runLineChat(session, input.io, {
        json: input.global.json,
        quiet: input.global.quiet,
        message: o.message,
        // --timeout (default 30 s) bounds each reply's wait; the REPL waits as long as the person does.
        replyTimeoutMs: timeoutMsOf(input),
        // On the emulator (a management URL, its admin API), a failed delivery of the message ends the wait at once.
        watch: settings.baseUrl ? (message) => watchMessageDelivery(client, message) : undefined,
        style: styleFor(input.io, input.global),
      });
    } finally {
      session.close();
    }
  });
};

async function printCharacters(input: CommandInput<ChatOptions & TargetFlags>): Promise<void> {
  const o = input.options;
  const characters = await withClient(input, {}, (client, settings) =>
    listCharacters(client, o.org ?? settings.orgId),
  );
  printRows(
    input,
    characters,
    [
      { header: 'ID', value: (c) => c.id },
      { header: 'NAME', value: (c) => c.name },
      { header: 'ENGINE', value: (c) => c.engine },
      { header: 'AGENT', value: (c) => c.agentId },
    ],
    'characters',
  );
}

export default chat;
