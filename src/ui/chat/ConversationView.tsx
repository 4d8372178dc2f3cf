import { Box, Static, Text } from 'ink';
import Spinner from 'ink-spinner';
import type { Message } from '../../client/index.js';
import { escapeControls, escapeControlsKeepLayout } from '../terminal-text.js';
import { MessageView } from './MessageView.js';
import type { ChatEntry } from './use-chat-session.js';

const NOTICE_COLORS = { info: undefined, warning: 'yellow', error: 'red' } as const;

/** Finished entries printed once (ink's Static: never redrawn, kept in scrollback); streaming replies or a spinner redrawn under them. */
export function ConversationView({
  entries,
  live,
  waiting,
  characterName,
}: {
  entries: ChatEntry[];
  live: Message[];
  waiting: boolean;
  characterName: string;
}) {
  return (
    <Box flexDirection="column">
      <Static items={entries}>
        {(entry) =>
          entry.kind === 'message' ? (
            <MessageView key={entry.key} message={entry.message} characterName={characterName} />
          ) : (
            <Text
              key={entry.key}
              color={NOTICE_COLORS[entry.level]}
              dimColor={entry.level === 'info'}
            >
              {escapeControlsKeepLayout(
                entry.level === 'info' ? entry.text : `${entry.level}: ${entry.text}`,
              )}
            </Text>
          )
        }
      </Static>
      {live.map((message) => (
        <MessageView key={message.id} message={message} characterName={characterName} />
      ))}
      {waiting && live.length === 0 ? (
        <Box>
          <Text color="cyan">
            <Spinner type="dots" />
          </Text>
          <Text dimColor>{` ${escapeControls(characterName)} is writing…`}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
