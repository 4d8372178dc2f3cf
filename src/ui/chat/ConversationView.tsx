import { Box, Static } from 'ink';
import type { Message } from '../../client/index.js';
import type { ChatEntry } from './chat-entry.js';
import { MessageView } from './MessageView.js';
import { NoticeView } from './NoticeView.js';
import { WaitingIndicator } from './WaitingIndicator.js';

/**
 * The conversation: finished entries are printed once (ink's Static: nothing to redraw, and they stay in
 * the scrollback); replies still streaming are redrawn under them.
 */
export function ConversationView({ entries, live, waiting, characterName }: { entries: ChatEntry[]; live: Message[]; waiting: boolean; characterName: string }) {
  return (
    <Box flexDirection="column">
      <Static items={entries}>
        {(entry) =>
          entry.kind === 'message' ? (
            <MessageView key={entry.key} message={entry.message} characterName={characterName} />
          ) : (
            <NoticeView key={entry.key} level={entry.level} text={entry.text} />
          )
        }
      </Static>
      {live.map((message) => (
        <MessageView key={message.id} message={message} characterName={characterName} />
      ))}
      {waiting && live.length === 0 ? <WaitingIndicator characterName={characterName} /> : null}
    </Box>
  );
}
