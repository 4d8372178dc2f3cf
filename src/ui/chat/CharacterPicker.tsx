import { useEffect, useRef, useState } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import Spinner from 'ink-spinner';
import type { Character } from '../../client/index.js';
import { UserError, EXIT } from '../../errors.js';
import { escapeControls } from '../terminal-text.js';

/** A list of the org's characters: Up and Down move, Enter picks. */
export function CharacterPicker({
  load,
  onPick,
}: {
  load: () => Promise<Character[]>;
  onPick: (character: Character) => void;
}) {
  const { exit } = useApp();
  const [characters, setCharacters] = useState<Character[] | undefined>(undefined);
  const [selected, setSelected] = useState(0);
  // The key handler reads refs: keys that come right after the list appears still see it.
  const list = useRef<Character[] | undefined>(undefined);
  const choice = useRef(0);
  const select = (index: number) => {
    choice.current = index;
    setSelected(index);
  };

  useEffect(() => {
    let active = true;
    load().then(
      (found) => {
        if (!active) return;
        if (found.length === 0)
          exit(
            new UserError(
              'no characters in this org to chat with: create one (POST /_emulator/characters) or pass a character id',
              EXIT.NOT_FOUND,
            ),
          );
        else {
          list.current = found;
          setCharacters(found);
        }
      },
      (error: unknown) => {
        if (active) exit(error instanceof Error ? error : new Error(String(error)));
      },
    );
    return () => {
      active = false;
    };
  }, [load, exit]);

  useInput((_input, key) => {
    const all = list.current;
    if (!all) return;
    if (key.upArrow) select((choice.current - 1 + all.length) % all.length);
    else if (key.downArrow) select((choice.current + 1) % all.length);
    else if (key.return) onPick(all[choice.current]);
  });

  if (!characters) {
    return (
      <Text>
        <Spinner type="dots" /> loading characters…
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      <Text bold>Chat with which character? (Up/Down, Enter)</Text>
      {characters.map((character, i) => (
        <Text key={character.id} color={i === selected ? 'cyan' : undefined}>
          {i === selected ? '› ' : '  '}
          {escapeControls(character.name ?? character.id)}{' '}
          <Text dimColor>({escapeControls(character.id)})</Text>
        </Text>
      ))}
    </Box>
  );
}
