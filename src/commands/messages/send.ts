import type { CommandHandler, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';
import { askText, readStdin } from '../../ui/dialogs.js';
import { UserError, EXIT } from '../../errors.js';

/** Sends one message; the character's reply arrives later (`messages list --after <id>`). */
const send: CommandHandler<{ type: string; attachment?: Array<{ type: string; content: string }> } & TargetFlags> = async (input) => {
  const o = input.options;
  let text = input.args[1];
  if (text === '-') text = await readStdin(input.io);
  else if (text === undefined) text = await askText(input.io, { flag: 'the text as an argument (or "-" for stdin)', message: 'Message:' });
  if (!text && !o.attachment?.length) throw new UserError('the message is empty: pass the text (or "-" to read it from stdin)', EXIT.USAGE);
  const message = await withClient(input, { apiKey: true, messaging: true }, (client) =>
    client.messaging.messages.send(input.args[0], { content: text, type: o.type, ...(o.attachment ? { attachments: o.attachment } : {}) }),
  );
  printRecord(input, message);
};

export default send;
