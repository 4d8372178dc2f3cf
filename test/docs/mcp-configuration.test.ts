import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { mcpConfigurations } from '../../src/project/scaffold.js';

// docs/mcp.md's configurations are the ones `plugsmith init` writes: it said `npx plugsmith mcp`, which in a Python
// project (no node_modules) fetches whatever the registry serves under the name, after a prompt an agent cannot answer.

const DOC = resolve(import.meta.dirname, '../../docs/mcp.md');

test("docs/mcp.md's Cursor and VS Code blocks are a TypeScript project's files, and its Claude Code lines their commands", async () => {
  const text = await readFile(DOC, 'utf8');
  const section = text.slice(text.indexOf('## Configuration'), text.indexOf('## Tools'));
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
  const written = mcpConfigurations(false);
  expect(blocks).toEqual([
    JSON.parse(written['.cursor/mcp.json']),
    JSON.parse(written['.vscode/mcp.json']),
  ]);
  for (const python of [false, true]) {
    const server = JSON.parse(mcpConfigurations(python)['.mcp.json']).mcpServers.plugsmith as {
      command: string;
      args: string[];
    };
    expect(section).toContain(
      `claude mcp add plugsmith -- ${[server.command, ...server.args].join(' ')} `,
    );
  }
  expect(text).not.toMatch(/npx plugsmith mcp/);
});
