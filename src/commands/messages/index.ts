import { defineCommand, integerOption } from '../types.js';
import { targetOptions } from '../list-options.js';

const run = () => import('./run.js');

/** `--attachment TYPE=CONTENT`, repeatable. */
function parseAttachment(
  value: string,
  previous: unknown,
): Array<{ type: string; content: string }> {
  const at = value.indexOf('=');
  const attachment =
    at > 0
      ? { type: value.slice(0, at), content: value.slice(at + 1) }
      : { type: 'IMAGE_URL', content: value };
  return [
    ...((previous as Array<{ type: string; content: string }> | undefined) ?? []),
    attachment,
  ];
}

/** `plugsmith messages send|list` (messaging API, with the API key). */
export const messageCommands = [
  defineCommand({
    path: ['messages', 'send'],
    summary: 'Send a message to a conversation ("-" reads the text from stdin)',
    examples: [
      'plugsmith messages send conv_123 "hello"',
      'plugsmith messages send conv_123 "what is in this picture?" --attachment IMAGE_URL=https://example.com/cat.png',
      'echo "hello" | plugsmith messages send conv_123 - --json',
    ],
    args: ['<conversationId>', '[text]'],
    options: [
      { flags: '--type <type>', description: 'message type', default: 'TEXT' },
      {
        flags: '--attachment <type=content>',
        description: 'attachment, repeatable (a bare URL is an IMAGE_URL)',
        parse: parseAttachment,
      },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.send })),
  }),
  defineCommand({
    path: ['messages', 'list'],
    summary: 'List a conversation’s messages, oldest first',
    examples: [
      'plugsmith messages list conv_123',
      'plugsmith messages list conv_123 --after msg_456 --json',
      'plugsmith messages list conv_123 --all --json',
    ],
    args: ['<conversationId>'],
    options: [
      { flags: '--after <messageId>', description: 'only messages after this one (for polling)' },
      {
        flags: '--limit <n>',
        description: 'messages per page (1-100)',
        parse: integerOption('--limit', 1, 100),
      },
      { flags: '--all', description: 'follow the pages and print every message' },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.list })),
  }),
];
