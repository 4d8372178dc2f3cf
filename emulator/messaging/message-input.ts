import type { MessageRecord } from '../model.js';
import { badRequest, detail, type ErrorDetail } from '../errors.js';
import { MAX_URL_LENGTH, type MessageSend } from '#contract';

/** Longest content a plugin may build by streaming packets into one message. */
export const MAX_STREAMED_CONTENT_LENGTH = 1024 * 1024;

/** A message body after the schema, its defaults filled in: what the per-type rules look at. */
export type MessageInput = Required<MessageSend>;

/** Checks what a schema cannot say well (TEXT not blank, http(s) URLs for IMAGE/AUDIO and attachments, FORM a JSON object); throws a 400. */
export function checkMessageInput(input: MessageInput): void {
  const problems: ErrorDetail[] = [];
  const { content, type } = input;
  if (type === 'TEXT' && content.trim() === '') {
    problems.push(
      detail(
        ['content'],
        'too_small',
        'text with at least one non-space character',
        content,
        'content of a TEXT message must not be empty',
      ),
    );
  } else if ((type === 'IMAGE' || type === 'AUDIO') && !isHttpUrl(content)) {
    problems.push(
      detail(
        ['content'],
        'invalid_string',
        'an http(s) URL',
        content,
        `content of an ${type} message must be the http(s) URL of the ${type === 'IMAGE' ? 'image' : 'audio'}`,
      ),
    );
  } else if (type === 'FORM') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      problems.push(
        detail(
          ['content'],
          'invalid_string',
          'a JSON object',
          content,
          'content of a FORM message must be a JSON object as text (a form, or the values submitted to one)',
        ),
      );
    }
  }
  input.attachments.forEach((attachment, i) => {
    if (!isHttpUrl(attachment.content)) {
      problems.push(
        detail(
          ['attachments', String(i), 'content'],
          'invalid_string',
          'an http(s) URL',
          attachment.content,
          `attachments[${i}].content must be the http(s) URL of the image`,
        ),
      );
    }
  });
  if (problems.length > 0) throw badRequest(`Invalid message: ${problems[0].message}`, problems);
}

function isHttpUrl(text: string): boolean {
  if (text.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** How a message reads as one chat turn for a reply engine: TEXT as it is, others tagged with their type. */
export function asChatText(
  message: Pick<MessageRecord, 'type' | 'content' | 'attachments'>,
): string {
  const body = message.type === 'TEXT' ? message.content : `[${message.type}] ${message.content}`;
  if (message.attachments.length === 0) return body;
  return [body, ...message.attachments.map((a) => `[${a.type}] ${a.content}`)].join('\n');
}
