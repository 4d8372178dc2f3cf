import { writeFileReplacingLink } from '../../shared/project-file.js';
import { extname } from 'node:path';
import type { Conversation, Message } from '../../client/index.js';

type TranscriptFormat = 'markdown' | 'json';
/** The formats `/save` writes, by the file's extension. */
const FORMATS: Record<string, TranscriptFormat | undefined> = {
  '.json': 'json',
  '.md': 'markdown',
  '.markdown': 'markdown',
};

/** `.json` is JSON, `.md` and `.markdown` are Markdown; any other extension is refused (undefined). */
export function transcriptFormatOf(path: string): TranscriptFormat | undefined {
  return FORMATS[extname(path).toLowerCase()];
}

/** A conversation as a Markdown document: a heading, then one section per message. */
function transcriptMarkdown(
  conversation: Conversation,
  messages: Message[],
  characterName?: string,
): string {
  const character = characterName ?? conversation.characterId ?? 'character';
  const lines = [`# Conversation ${conversation.id} with ${character}`, ''];
  for (const message of messages) {
    const who = message.sender === 'USER' ? 'You' : character;
    const when = message.createdAt ? ` (${message.createdAt})` : '';
    lines.push(`**${who}**${when}:`, '');
    lines.push(
      message.type && message.type !== 'TEXT'
        ? `[${message.type}] ${message.content}`
        : message.content,
    );
    for (const attachment of message.attachments ?? []) {
      lines.push(
        '',
        attachment.type === 'IMAGE_URL'
          ? `![attachment](${attachment.content})`
          : `[${attachment.type}] ${attachment.content}`,
      );
    }
    if (message.isStreaming) lines.push('', '_(still streaming when saved)_');
    lines.push('');
  }
  return lines.join('\n');
}

/** Writes the transcript to `path` in the format its extension names (JSON: the records as the API returns them); returns the format. */
export async function saveTranscript(
  path: string,
  conversation: Conversation,
  messages: Message[],
  characterName?: string,
): Promise<TranscriptFormat> {
  const format = transcriptFormatOf(path);
  if (!format)
    throw new Error(`cannot tell the format of ${path}: end the name with .md (Markdown) or .json`);
  await writeFileReplacingLink(
    path,
    format === 'json'
      ? JSON.stringify({ conversation, messages }, null, 2) + '\n'
      : transcriptMarkdown(conversation, messages, characterName),
  );
  return format;
}
