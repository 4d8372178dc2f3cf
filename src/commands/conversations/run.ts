import type { RunCommand, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';

/** Creates a conversation with a character. */
export const create: RunCommand<{ character?: string } & TargetFlags> = async (input) => {
  const characterId =
    input.options.character ??
    (await askText(input.io, { flag: '--character', message: 'Character id:' }));
  const conversation = await withClient(input, { apiKey: true, messaging: true }, (client) =>
    client.messaging.conversations.create({ characterId }),
  );
  printRecord(input, conversation);
};

/** Shows a conversation. */
export const get: RunCommand<TargetFlags> = async (input) => {
  const conversation = await withClient(input, { apiKey: true, messaging: true }, (client) =>
    client.messaging.conversations.get(input.args[0]),
  );
  printRecord(input, conversation);
};
