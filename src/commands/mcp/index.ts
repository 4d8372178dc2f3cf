import { defineCommand } from '../types.js';

/** `plugsmith mcp`: the emulator as tools for coding agents. */
export const mcpCommands = [
  defineCommand({
    path: ['mcp'],
    summary:
      "Serve the project's emulator to a coding agent over MCP (stdio): trigger events, read and resend deliveries, run check, chat, faults (docs/mcp.md)",
    examples: [
      'claude mcp add plugsmith -- npx --no plugsmith mcp',
      'plugsmith mcp --read-only',
      'plugsmith --emulator ./my-plugin mcp',
    ],
    options: [
      {
        flags: '--read-only',
        description:
          'offer only the tools that read (status, deliveries, characters): none that changes anything',
      },
    ],
    load: () => import('./mcp.js'),
  }),
];
