import type { CommandHandler, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';

/** Shows a conversation. */
const get: CommandHandler<TargetFlags> = async (input) => {
  const conversation = await withClient(input, { apiKey: true, messaging: true }, (client) => client.messaging.conversations.get(input.args[0]));
  printRecord(input, conversation);
};

export default get;
