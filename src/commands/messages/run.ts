import type { RunCommand, TargetFlags } from '../types.js';
import { printRecord, printRows, withClient } from '../context.js';
import { askText, readStdin } from '../../ui/dialogs.js';
import { UserError, EXIT } from '../../errors.js';
import { note } from '../../ui/output.js';
import type { Message } from '../../client/index.js';

/** Sends one message; the character's reply arrives later (`messages list --after <id>`). */
export const send: RunCommand<
  { type: string; attachment?: Array<{ type: string; content: string }> } & TargetFlags
> = async (input) => {
  const o = input.options;
  let text = input.args[1];
  if (text === '-') text = await readStdin(input.io);
  else if (text === undefined)
    text = await askText(input.io, {
      flag: 'the text as an argument (or "-" for stdin)',
      message: 'Message:',
    });
  if (!text && !o.attachment?.length)
    throw new UserError(
      'the message is empty: pass the text (or "-" to read it from stdin)',
      EXIT.USAGE,
    );
  const message = await withClient(input, { apiKey: true, messaging: true }, (client) =>
    client.messaging.messages.send(input.args[0], {
      content: text,
      type: o.type,
      ...(o.attachment ? { attachments: o.attachment } : {}),
    }),
  );
  printRecord(input, message);
};

/** Lists messages; the messaging API pages with `after` and `limit`, not the `@` query system, hence --after, --limit and --all. */
export const list: RunCommand<{ after?: string; limit?: number; all?: boolean } & TargetFlags> = (
  input,
) =>
  withClient(input, { apiKey: true, messaging: true }, async (client) => {
    const o = input.options;
    const conversationId = input.args[0];
    const query = { after: o.after, limit: o.limit ?? (o.all ? 100 : undefined) };
    let rows: Message[];
    let next: string | null = null;
    if (o.all) {
      const { collect } = await import('../../client/index.js');
      rows = await collect((q) => client.messaging.messages.list(conversationId, q), query);
    } else {
      const page = await client.messaging.messages.list(conversationId, query);
      rows = page.data;
      if (page.pagination?.type === 'cursor' && page.pagination.hasNext)
        next = page.pagination.nextCursor;
    }
    printRows(
      input,
      rows,
      [
        { header: 'ID', value: (m) => m.id },
        { header: 'SENDER', value: (m) => m.sender },
        { header: 'TYPE', value: (m) => m.type },
        { header: 'CONTENT', value: (m) => `${m.content ?? ''}${m.isStreaming ? ' …' : ''}` },
        { header: 'SENT', value: (m) => m.createdAt },
      ],
      'messages',
    );
    if (next) note(input.io, input.global, `more messages: --after ${next} (or --all)`);
  });
