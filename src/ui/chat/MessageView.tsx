import { Box, Text } from 'ink';
import type { Message } from '../../client/index.js';

/** One message: who wrote it, its text (as far as it has streamed), its attachments. */
export function MessageView({ message, characterName }: { message: Message; characterName: string }) {
  const mine = message.sender === 'USER';
  const failed = message.error !== undefined && message.error !== null;
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold color={mine ? 'green' : 'cyan'}>
          {mine ? 'you' : characterName}
        </Text>
        <Text dimColor>{' › '}</Text>
        <Text color={failed ? 'red' : undefined}>
          {message.type && message.type !== 'TEXT' ? `[${message.type}] ` : ''}
          {message.content}
        </Text>
      </Box>
      {(message.attachments ?? []).map((attachment, i) => (
        <Text key={i} dimColor>
          {'  '}[{attachment.type === 'IMAGE_URL' ? 'image' : attachment.type}] {attachment.content}
        </Text>
      ))}
    </Box>
  );
}
