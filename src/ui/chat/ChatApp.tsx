import { useEffect, useState } from 'react';
import { useApp, useInput } from 'ink';
import type { Character } from '../../client/index.js';
import { UserError, EXIT } from '../../errors.js';
import { CharacterPicker } from './CharacterPicker.js';
import { ChatScreen, type ChatScreenProps } from './ChatScreen.js';
import { LIST_CHARACTERS_COMMAND } from './chat-errors.js';

/** Props of the chat app: the screen's, and how to list characters when no id was given. */
export interface ChatAppProps extends ChatScreenProps {
  /** Lists the characters to pick from (the emulator's admin API); absent when it cannot be reached. */
  listCharacters?: () => Promise<Character[]>;
}

/** `plugsmith chat` on a terminal: a character picker when needed, then the chat screen; Ctrl+C leaves either. */
export function ChatApp({ listCharacters, ...screen }: ChatAppProps) {
  const { exit } = useApp();
  const [picked, setPicked] = useState<Character | undefined>(undefined);
  const needsPick = screen.characterId === undefined && screen.conversationId === undefined;

  useInput((input, key) => {
    if (key.ctrl && input === 'c') exit();
  });

  useEffect(() => {
    if (needsPick && !listCharacters) {
      exit(
        new UserError(
          `missing characterId: pass it, \`plugsmith chat <characterId>\` (no management URL to list characters from; \`${LIST_CHARACTERS_COMMAND}\` on the emulator)`,
          EXIT.USAGE,
        ),
      );
    }
  }, [needsPick, listCharacters, exit]);

  if (needsPick && !picked)
    return listCharacters ? <CharacterPicker load={listCharacters} onPick={setPicked} /> : null;
  return (
    <ChatScreen
      {...screen}
      characterId={picked?.id ?? screen.characterId}
      characterName={picked?.name ?? screen.characterName}
    />
  );
}
