/** A line the user typed: a message to send, or one of the REPL's slash commands. */
export type ChatInput =
  | { kind: 'message'; text: string }
  | { kind: 'command'; name: string; argument: string };

/** The slash commands of the chat REPL and what they do, as `/help` lists them. */
export const SLASH_COMMANDS: ReadonlyArray<{ usage: string; summary: string }> = [
  { usage: '/new', summary: 'start a new conversation with the same character' },
  { usage: '/attach <imageUrl>', summary: 'attach an image URL to your next message' },
  { usage: '/save <file>', summary: 'save the transcript (.md for Markdown, .json for JSON)' },
  { usage: '/history', summary: 'list the lines you sent' },
  { usage: '/help', summary: 'show this help' },
  { usage: '/quit', summary: 'leave (so does Ctrl+C)' },
];

/** Splits a line into a message or a slash command; `//text` sends the message "/text". */
export function parseChatInput(line: string): ChatInput {
  const text = line.trim();
  if (text.startsWith('//')) return { kind: 'message', text: text.slice(1) };
  if (!text.startsWith('/')) return { kind: 'message', text };
  const space = text.search(/\s/);
  const name = (space === -1 ? text.slice(1) : text.slice(1, space)).toLowerCase();
  return { kind: 'command', name, argument: space === -1 ? '' : text.slice(space + 1).trim() };
}

/** The `/help` text, one command a line. */
export function slashHelp(): string {
  const rows = [
    ...SLASH_COMMANDS,
    { usage: '//text', summary: 'send a message that starts with /' },
  ];
  const width = Math.max(...rows.map((c) => c.usage.length));
  return [
    'Commands:',
    ...rows.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    'Up and Down recall the lines you sent.',
  ].join('\n');
}
