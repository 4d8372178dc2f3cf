import { defineCommand } from '../types.js';
import { orgOption, targetOptions } from '../list-options.js';

/** `plugsmith chat`: the interactive chat REPL, and its line mode for scripts. */
export const chatCommands = [
  defineCommand({
    path: ['chat'],
    summary:
      'Chat with a character: replies stream in as they are written (a REPL on a terminal, one line per message otherwise)',
    examples: [
      'plugsmith chat char_nova',
      'plugsmith chat',
      'plugsmith chat --conversation conv_123',
      'plugsmith chat char_nova --message "hello"',
      'printf "hello\\nhow are you?\\n" | plugsmith chat char_nova',
      'plugsmith chat char_nova --json < questions.txt',
      'plugsmith chat --list-characters',
    ],
    args: ['[characterId]'],
    options: [
      {
        flags: '--conversation <conversationId>',
        description: 'continue this conversation (its messages so far are shown)',
      },
      {
        flags: '-m, --message <text>',
        description: 'send this one message, print the reply and exit',
      },
      {
        flags: '--list-characters',
        description: 'list the org’s characters and exit (emulator only)',
      },
      orgOption,
      ...targetOptions,
    ],
    load: () => import('./chat.js'),
  }),
];
