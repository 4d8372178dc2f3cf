import { useRef, useState } from 'react';
import { useApp } from 'ink';
import type { Attachment } from '../../client/index.js';
import { describeChatError } from './chat-errors.js';
import { ChatClosedError, type ChatSession } from './chat-session.js';
import { parseChatInput, slashHelp } from './slash-commands.js';
import { saveTranscript } from './transcript.js';
import type { InputHistory } from './use-input-history.js';
import type { ChatView } from './use-chat-session.js';

/** Most attachments the platform takes on one message. */
const MAX_ATTACHMENTS = 10;

/** Sends messages and runs slash commands; errors people can act on become notices, others leave through `exit(error)` (the CLI's path). */
export function useChatInput(
  session: ChatSession,
  view: ChatView,
  history: InputHistory,
  characterName: string,
): { submit: (line: string) => void; fail: (error: unknown) => void; attachments: Attachment[] } {
  const { exit } = useApp();
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  // A ref, so two lines typed before a render still see each other's attachments.
  const pending = useRef<Attachment[]>([]);

  const fail = (error: unknown) => {
    if (error instanceof ChatClosedError) return;
    const problem = describeChatError(error, {
      characterId: session.characterId ?? session.conversation?.characterId,
      conversationId: session.conversationId,
    });
    if (problem) view.addNotice('error', problem.message);
    else exit(error instanceof Error ? error : new Error(String(error)));
  };

  const setPending = (next: Attachment[]) => {
    pending.current = next;
    setAttachments(next);
  };

  const send = async (text: string) => {
    if (!session.conversation)
      return view.addNotice('error', 'no conversation: /new starts one, /quit leaves');
    if (session.busy)
      return view.addNotice(
        'warning',
        'the reply is still coming: send your message once it is complete',
      );
    const files = pending.current;
    setPending([]);
    view.setAwaitingFirstPacket(true);
    try {
      await session.send(text, files);
    } finally {
      view.setAwaitingFirstPacket(false);
    }
  };

  const command = async (name: string, argument: string) => {
    switch (name) {
      case 'help':
        return view.addNotice('info', slashHelp());
      case 'history': {
        const lines = history.lines().slice(0, -1); // not this /history itself
        return view.addNotice(
          'info',
          lines.length === 0
            ? 'no lines sent yet'
            : lines.map((l, i) => `${String(i + 1).padStart(3)}  ${l}`).join('\n'),
        );
      }
      case 'attach':
        return attach(argument);
      case 'save':
        return save(argument);
      case 'new':
        if (session.busy)
          return view.addNotice('warning', 'the reply is still coming: /new once it is complete');
        await session.newConversation();
        return setPending([]);
      case 'quit':
      case 'exit':
        return exit();
      default:
        return view.addNotice('error', `unknown command /${name}: /help lists the commands`);
    }
  };

  const attach = (url: string) => {
    if (!url) return view.addNotice('error', 'usage: /attach <imageUrl>');
    const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
    if (protocol !== 'http:' && protocol !== 'https:')
      return view.addNotice('error', `not an http(s) URL: ${url}`);
    if (pending.current.length >= MAX_ATTACHMENTS)
      return view.addNotice('error', `at most ${MAX_ATTACHMENTS} attachments per message`);
    setPending([...pending.current, { type: 'IMAGE_URL', content: url }]);
    view.addNotice('info', `attached ${url} to your next message`);
  };

  const save = async (path: string) => {
    if (!path) return view.addNotice('error', 'usage: /save <file.md|file.json>');
    if (!session.conversation) return view.addNotice('error', 'no conversation to save');
    try {
      const format = await saveTranscript(
        path,
        session.conversation,
        session.messages,
        characterName,
      );
      view.addNotice(
        'info',
        `saved ${session.messages.length} messages to ${path} (${format === 'json' ? 'JSON' : 'Markdown'})`,
      );
    } catch (error) {
      view.addNotice('error', `cannot save: ${(error as Error).message}`);
    }
  };

  const submit = (line: string) => {
    const input = parseChatInput(line);
    if (input.kind === 'message' && input.text === '') return;
    history.push(line.trim());
    void (input.kind === 'message' ? send(input.text) : command(input.name, input.argument)).catch(
      fail,
    );
  };

  return { submit, fail, attachments };
}
