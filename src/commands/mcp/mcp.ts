import type { RunCommand, TargetFlags } from '../types.js';
import { note } from '../../ui/output.js';
import { VERSION } from '../../version.js';
import { listenForStop } from '../stop-signal.js';
import { connectToProject } from './connect.js';
import { askedEmulator, projectRootOf } from '../../config/emulators.js';
import { EXIT, UserError } from '../../errors.js';

/** `plugsmith mcp`: serves MCP over stdio until the client closes stdin (or SIGINT/SIGTERM). stdout carries the protocol only. */
const mcp: RunCommand<{ readOnly?: boolean } & TargetFlags> = async (input) => {
  // stdout belongs to the protocol: anything a library logs goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  // Outside a project the most recent emulator would be someone else's: ask which one rather than guess.
  if (!askedEmulator() && !projectRootOf())
    throw new UserError(
      `plugsmith mcp serves one project's emulator, and ${process.cwd()} is not inside a project (no plugsmith.json here or above): start the server in the project folder (cd there, or the agent's working directory), or name the emulator with --emulator <folder|url> (\`plugsmith --emulator ./my-plugin mcp\`)`,
      EXIT.USAGE,
    );
  const connect = () => connectToProject(input);

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
