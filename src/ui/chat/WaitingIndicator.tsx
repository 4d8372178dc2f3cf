import { Box, Text } from 'ink';
import Spinner from 'ink-spinner';
import { escapeControls } from '../terminal-text.js';

/** Shown from sending a message until the reply's first packet. */
export function WaitingIndicator({ characterName }: { characterName: string }) {
  return (
    <Box>
      <Text color="cyan">
        <Spinner type="dots" />
      </Text>
      <Text dimColor>{` ${escapeControls(characterName)} is writing…`}</Text>
    </Box>
  );
}
