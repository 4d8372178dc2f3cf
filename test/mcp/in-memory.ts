import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Emulator } from '../../emulator/index.js';
import { createClient } from '../../src/client/index.js';
import { createMcpServer, type Connect } from '../../src/mcp/server.js';

// The MCP server over the SDK's in-memory transport, connected to a real emulator as `plugsmith mcp` connects.

/** A connection to the emulator with its seeded credentials, each of them scrubbed from answers (and `more`). */
export function connectTo(e: Emulator, more: string[] = []): Connect {
  return async () => ({
    client: createClient({
      baseUrl: e.url,
      messagingUrl: e.messagingUrl,
      token: e.token ?? undefined,
      apiKey: e.apiKey ?? undefined,
      adminToken: e.adminToken,
    }),
    settings: {
      profileName: null,
      baseUrl: e.url,
      messagingUrl: e.messagingUrl,
      orgId: e.orgId ?? undefined,
      local: true,
    },
    manifestPath: '/nonexistent/plugsmith.json',
    project: null,
    credentials: [e.token, e.apiKey, e.adminToken, ...more].filter((v): v is string => Boolean(v)),
  });
}

/** An MCP client of a server made with `connect`. */
export async function mcpClient(connect: Connect, readOnly = false): Promise<Client> {
  const server = createMcpServer({ connect, readOnly, version: 'test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text content of a result (its summary, then its JSON). */
export function textOf(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}
