import { join } from 'node:path';
import type { RunCommand, TargetFlags } from '../types.js';
import { clientFor } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { adminTokenFor } from '../../config/admin-token.js';
import { chooseEmulator, projectRootOf } from '../../config/emulators.js';
import { note } from '../../ui/output.js';
import { VERSION } from '../../version.js';
import { listenForStop } from '../stop-signal.js';
import type { Connection } from '../../mcp/server.js';

/** `plugsmith mcp`: serves MCP over stdio until the client closes stdin (or SIGINT/SIGTERM). stdout carries the protocol only. */
const mcp: RunCommand<{ readOnly?: boolean } & TargetFlags> = async (input) => {
  // stdout belongs to the protocol: anything a library logs goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  /** The project's emulator, found afresh for each call (as every command finds it): it may start after the server. */
  const connect = async (): Promise<Connection> => {
    const { client, settings } = await clientFor(input, { token: true });
    if (!settings.local) {
      await client.close();
      throw new UserError(
        `plugsmith mcp talks only to a local emulator, and the settings point at ${settings.baseUrl}: unset PLUGSMITH_BASE_URL (or switch to a \`plugsmith login --local\` profile) and run \`plugsmith dev\` in the project`,
        EXIT.USAGE,
      );
    }
    const choice = await chooseEmulator();
    const project = choice.state?.project ?? projectRootOf();
    const adminToken = await adminTokenFor(settings.baseUrl);
    const credentials = [settings.token, settings.apiKey, adminToken].filter(
      (value): value is string => typeof value === 'string' && value !== '',
    );
    return {
      client,
      settings,
      project,
      manifestPath: join(project ?? process.cwd(), 'plugsmith.json'),
      credentials,
    };
  };

  const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = createMcpServer({
    connect,
    readOnly: Boolean(input.options.readOnly),
    version: VERSION,
  });
  const transport = new StdioServerTransport();
  const stop = listenForStop();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  note(
    input.io,
    input.global,
    `plugsmith mcp: serving over stdio${input.options.readOnly ? ' (read-only)' : ''}`,
  );
  try {
    await Promise.race([closed, stop.stopped]);
  } finally {
    stop.dispose();
    await server.close();
  }
};

export default mcp;
