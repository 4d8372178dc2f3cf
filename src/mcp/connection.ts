import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PlatformClient } from '../client/index.js';
import { ApiError, NetworkError } from '../client/errors.js';
import type { Settings } from '../config/profiles.js';
import { UserError } from '../errors.js';
import { toolError } from './shape.js';

/** A client of the project's emulator, for one tool call, and what the call may need to know about the project. */
export interface Connection {
  client: PlatformClient;
  settings: Pick<Settings, 'profileName' | 'baseUrl' | 'messagingUrl' | 'orgId' | 'local'>;
  /** The project's plugsmith.json (it may not exist). */
  manifestPath: string;
  /** The project folder, or null outside a project. */
  project: string | null;
  /** Credentials this connection holds (token, API key, admin token): scrubbed from every output. */
  credentials: string[];
}

/** Finds the emulator afresh (it may have started or moved since the last call), or throws a UserError naming the fix. */
export type Connect = () => Promise<Connection>;

/** The fix to name when the emulator does not answer. */
export const START_EMULATOR =
  'start it with `plugsmith dev` in the project folder (or `plugsmith emulator start`), then call the tool again';

/** An error as a tool error: the user's mistakes and the API's refusals with their details, an unreachable emulator with the fix. */
export function errorResult(error: unknown, connection?: Connection): CallToolResult {
  const known = connection?.credentials ?? [];
  if (error instanceof UserError) return toolError(error.message, known);
  if (error instanceof ApiError) {
    const more = error.details.length > 0 ? `\ndetails: ${JSON.stringify(error.details)}` : '';
    return toolError(`the emulator refused: ${error.message}${more}`, known);
  }
  if (error instanceof NetworkError) {
    const where = connection?.settings.baseUrl ?? 'the emulator';
    return toolError(`${where} does not answer (did \`plugsmith dev\` stop?): ${START_EMULATOR}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  // What an argument can do to the calls it is passed to: named, with the fix, not as Node's own words.
  if (error instanceof URIError)
    return toolError(
      'an argument is not valid Unicode text (it holds a lone surrogate), so it cannot be sent: pass ids and names as the lists give them',
      known,
    );
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ERR_INVALID_ARG_VALUE' && message.includes('null bytes'))
    return toolError(
      'a path holds a NUL character, which no file name can: name the file without it',
      known,
    );
  if (code === 'ENAMETOOLONG')
    return toolError(
      'a file name or path is longer than the system allows: use a shorter one',
      known,
    );
  return toolError(`unexpected error: ${message}`, known);
}

/** Runs one tool call with a fresh connection, closed afterwards; every failure comes back as a tool error. */
export async function withConnection(
  connect: Connect,
  work: (connection: Connection) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  let connection: Connection | undefined;
  try {
    connection = await connect();
    return await work(connection);
  } catch (error) {
    return errorResult(error, connection);
  } finally {
    await connection?.client.close().catch(() => {});
  }
}

/** The plugin a tool is about: the one given, else the one this project deployed to its emulator. */
export async function pluginIdOf(
  connection: Connection,
  given: string | undefined,
): Promise<string> {
  if (given) return given;
  // Loaded when a tool needs it: it reaches undici, which `plugsmith mcp` need not load to answer `initialize`.
  const { pluginOfProject } = await import('../dev/project-plugin.js');
  try {
    return await pluginOfProject(undefined, connection.manifestPath, connection.settings);
  } catch {
    throw new UserError(
      'no plugin of this project is deployed on its emulator: pass pluginId (emulator_status lists the plugins), or run `plugsmith dev` in the project folder to deploy it',
    );
  }
}
