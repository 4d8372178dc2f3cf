import { Text } from 'ink';
import { escapeControlsKeepLayout } from '../terminal-text.js';

const COLORS = { info: undefined, warning: 'yellow', error: 'red' } as const;

/** A line for the person, not part of the conversation: help, a dropped stream, an error and its cure. */
export function NoticeView({ level, text }: { level: 'info' | 'warning' | 'error'; text: string }) {
  return (
    <Text color={COLORS[level]} dimColor={level === 'info'}>
      {escapeControlsKeepLayout(level === 'info' ? text : `${level}: ${text}`)}
    </Text>
  );
}
