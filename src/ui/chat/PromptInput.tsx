import { useRef, useState } from 'react';
import { Box, Text, useInput } from 'ink';
import TextInput from 'ink-text-input';
import type { InputHistory } from './use-input-history.js';

/** The input line: text editing by ink-text-input, Up and Down walk through `history`. */
export function PromptInput({
  history,
  onSubmit,
  placeholder,
}: {
  history: InputHistory;
  onSubmit: (line: string) => void;
  placeholder?: string;
}) {
  const [value, setValue] = useState('');
  // The line as typed so far, before React renders it: keys arriving together would submit the previous render's value.
  const typed = useRef('');
  // Bumped when the line is replaced: a fresh TextInput puts its cursor at the end of the line.
  const [replacements, setReplacements] = useState(0);

  const update = (line: string, replace = false) => {
    typed.current = line;
    setValue(line);
    if (replace) setReplacements((n) => n + 1);
  };

  useInput((_input, key) => {
    const line = key.upArrow
      ? history.previous(typed.current)
      : key.downArrow
        ? history.next()
        : undefined;
    if (line !== undefined) update(line, true);
  });

  return (
    <Box>
      <Text color="green">{'› '}</Text>
      <TextInput
        key={replacements}
        value={value}
        placeholder={placeholder}
        onChange={(next) => {
          // Enter inside the text (a paste): each finished line is submitted, the rest stays in the input.
          if (!/[\r\n]/.test(next)) return update(next);
          const lines = next.split(/\r\n|\r|\n/);
          update(lines.pop()!, true);
          for (const line of lines) onSubmit(line);
        }}
        onSubmit={() => {
          const line = typed.current;
          update('');
          onSubmit(line);
        }}
      />
    </Box>
  );
}
