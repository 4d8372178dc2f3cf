import { z } from 'zod';
import { listCharacters as charactersOf } from '../../commands/chat/list-characters.js';
import { result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

export const listCharacters = defineTool({
  name: 'list_characters',
  title: 'List characters',
  description:
    "The emulator's characters (each belongs to an agent): the ids send_chat_message takes. A message to a character of an agent where an EVENT_HANDLER plugin is installed reaches that plugin as AGENT_MESSAGE_RECEIVED.",
  inputSchema: {},
  outputSchema: { characters: z.array(anyObject) },
  annotations: READ_ONLY,
  async run(_args, connection) {
    const characters = await charactersOf(connection.client, connection.settings.orgId);
    const rows = characters.map((character) => ({
      id: character.id,
      agentId: character.agentId,
      engine: character.engine,
      untrusted: { name: character.name },
    }));
    return result(`${rows.length} character(s).`, { characters: rows }, connection.credentials);
  },
});
