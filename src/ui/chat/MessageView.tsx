import { Box, Text } from 'ink';
import type { Message } from '../../client/index.js';
import { escapeControls, escapeControlsKeepLayout } from '../terminal-text.js';

/** One message: who wrote it, its text (as far as it has streamed), its attachments. */
export function MessageView({
  message,
  characterName,
}: {
  message: Message;
  characterName: string;
}) {
  const mine = message.sender === 'USER';
  const failed = message.error !== undefined && message.error !== null;
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold color={mine ? 'green' : 'cyan'}>
          {mine ? 'you' : escapeControls(characterName)}
        </Text>
        <Text dimColor>{' › '}</Text>
        <Text color={failed ? 'red' : undefined}>
          {message.type && message.type !== 'TEXT' ? `[${escapeControls(message.type)}] ` : ''}
          {escapeControlsKeepLayout(message.content ?? '')}
        </Text>
      </Box>
      {(message.attachments ?? []).map((attachment, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a message's attachments, fixed once sent and never reordered
        <Text key={i} dimColor>
          {'  '}[
          {attachment.type === 'IMAGE_URL' ? 'image' : escapeControls(String(attachment.type))}]{' '}
          {escapeControls(String(attachment.content))}
        </Text>
      ))}
    </Box>
  );
}
