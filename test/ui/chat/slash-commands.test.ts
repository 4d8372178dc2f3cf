import { describe, expect, test } from 'vitest';
import { parseChatInput, slashHelp, SLASH_COMMANDS } from '../../../src/ui/chat/slash-commands.js';
import { transcriptFormatOf } from '../../../src/ui/chat/transcript.js';

describe('chat input', () => {
  test.each([
    ['hello', { kind: 'message', text: 'hello' }],
    ['  hello  ', { kind: 'message', text: 'hello' }],
    ['/help', { kind: 'command', name: 'help', argument: '' }],
    ['/SAVE  notes/chat.md ', { kind: 'command', name: 'save', argument: 'notes/chat.md' }],
    [
      '/attach https://example.com/a.png',
      { kind: 'command', name: 'attach', argument: 'https://example.com/a.png' },
    ],
    ['//etc/hosts is a file', { kind: 'message', text: '/etc/hosts is a file' }],
  ])('%j', (line, parsed) => {
    expect(parseChatInput(line)).toEqual(parsed);
  });

  test('/help names every command', () => {
    for (const c of SLASH_COMMANDS) expect(slashHelp()).toContain(c.usage);
    expect(SLASH_COMMANDS.map((c) => c.usage.split(' ')[0])).toEqual([
      '/new',
      '/attach',
      '/save',
      '/history',
      '/help',
      '/quit',
    ]);
  });

  test.each([
    ['chat.json', 'json'],
    ['Chat.JSON', 'json'],
    ['chat.md', 'markdown'],
    ['chat.markdown', 'markdown'],
    ['chat.txt', undefined],
    ['chat', undefined],
  ])('the format of %s', (path, format) => {
    expect(transcriptFormatOf(path)).toBe(format);
  });
});
