import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Conversation, Message } from '../../client/index.js';

/** The formats `/save` writes, chosen by the file's extension. */
export type TranscriptFormat = 'markdown' | 'json';

/** `.json` is JSON, `.md` and `.markdown` are Markdown; any other extension is refused (undefined). */
export function transcriptFormatOf(path: string): TranscriptFormat | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  return undefined;
}

/** A conversation as a Markdown document: a heading, then one section per message. */
export function transcriptMarkdown(conversation: Conversation, messages: Message[], characterName?: string): string {
  const character = characterName ?? conversation.characterId ?? 'character';
  const lines = [`# Conversation ${conversation.id} with ${character}`, ''];
  for (const message of messages) {
    const who = message.sender === 'USER' ? 'You' : character;
    const when = message.createdAt ? ` (${message.createdAt})` : '';
    lines.push(`**${who}**${when}:`, '');
    lines.push(message.type && message.type !== 'TEXT' ? `[${message.type}] ${message.content}` : message.content);
    for (const attachment of message.attachments ?? []) {
      lines.push('', attachment.type === 'IMAGE_URL' ? `![attachment](${attachment.content})` : `[${attachment.type}] ${attachment.content}`);
    }
    if (message.isStreaming) lines.push('', '_(still streaming when saved)_');
    lines.push('');
  }
  return lines.join('\n');
}

/** A conversation as JSON: `{ conversation, messages }`, the records as the API returns them. */
export function transcriptJson(conversation: Conversation, messages: Message[]): string {
  return JSON.stringify({ conversation, messages }, null, 2) + '\n';
}

/** Writes the transcript to `path` in the format its extension names; returns the format. */
export async function saveTranscript(path: string, conversation: Conversation, messages: Message[], characterName?: string): Promise<TranscriptFormat> {
  const format = transcriptFormatOf(path);
  if (!format) throw new Error(`cannot tell the format of ${path}: end the name with .md (Markdown) or .json`);
  await writeFile(path, format === 'json' ? transcriptJson(conversation, messages) : transcriptMarkdown(conversation, messages, characterName));
  return format;
}
