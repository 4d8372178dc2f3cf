import { useEffect, useMemo } from 'react';
import { Box, Text } from 'ink';
import { ConversationView } from './ConversationView.js';
import { PromptInput } from './PromptInput.js';
import { ChatSession, type ChatClient } from './chat-session.js';
import { useChatInput } from './use-chat-input.js';
import { useChatSession } from './use-chat-session.js';
import { useInputHistory } from './use-input-history.js';
import { escapeControls } from '../terminal-text.js';

/** Props of the chat screen: whom to talk to, through which client. */
export interface ChatScreenProps {
  client: ChatClient;
  characterId?: string;
  /** Shown instead of the id when known (the picker knows it). */
  characterName?: string;
  conversationId?: string;
}

/** The REPL: the conversation so far, the reply streaming in, and the input line. */
export function ChatScreen({
  client,
  characterId,
  characterName,
  conversationId,
}: ChatScreenProps) {
  const session = useMemo(
    () => new ChatSession(client, characterId, { conversationId }),
    [client, characterId, conversationId],
  );
  const view = useChatSession(session);
  const history = useInputHistory();
  const name = characterName ?? characterId ?? session.conversation?.characterId ?? 'character';
  const input = useChatInput(session, view, history, name);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the session is made once per screen; the view, history and input are stable and the names are read when it starts
  useEffect(() => {
    const stop = session.on((update) => {
      if (update.type !== 'CONVERSATION_STARTED') return;
      // Up recalls what was said before, also in a conversation started earlier.
      for (const message of update.messages)
        if (message.sender === 'USER') history.push(message.content);
      view.addNotice(
        'info',
        `conversation ${update.conversation.id} with ${characterName ?? update.conversation.characterId ?? characterId}; /help lists commands, Ctrl+C leaves`,
      );
    });
    session.start().catch(input.fail);
    return () => {
      stop();
      session.close();
    };
  }, [session]);

  return (
    <Box flexDirection="column">
      <ConversationView
        entries={view.entries}
        live={view.live}
        waiting={view.awaitingFirstPacket}
        characterName={name}
      />
      {input.attachments.length > 0 ? (
        <Text
          dimColor
        >{`attached to your next message: ${escapeControls(input.attachments.map((a) => a.content).join(', '))}`}</Text>
      ) : null}
      <PromptInput
        history={history}
        onSubmit={input.submit}
        placeholder={session.conversation ? undefined : 'starting the conversation…'}
      />
    </Box>
  );
}
