import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z, type ZodRawShape } from 'zod';
import type { Connection } from './connection.js';

/**
 * One MCP tool, declared in its own file under `src/mcp/tools/` (as firebase-tools' `src/mcp/tools/`): its name, what
 * an agent reads about it (title, description, annotations), its input and output schemas, and what it does with a
 * connection to the project's emulator. `tools/index.ts` lists them; `server.ts` registers the list.
 */
export interface McpTool<Input extends ZodRawShape = ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Input;
  outputSchema: ZodRawShape;
  annotations: ToolAnnotations;
  /** Does the call with a fresh connection (closed afterwards); a throw becomes a tool error naming the fix. */
  run(
    args: z.objectOutputType<Input, z.ZodTypeAny>,
    connection: Connection,
  ): Promise<CallToolResult>;
}

/** Declares a tool; the identity function that types `run`'s arguments from the input schema. */
export function defineTool<Input extends ZodRawShape>(tool: McpTool<Input>): McpTool<Input> {
  return tool;
}

/** Reads only: `--read-only` offers exactly the tools with these annotations. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Changes the emulator's state, can be undone or repeated safely enough not to ask. */
export const WRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** An object of any shape, in output schemas. */
export const anyObject = z.record(z.unknown());
