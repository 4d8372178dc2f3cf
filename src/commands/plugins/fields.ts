import type { CommandInput } from '../types.js';
import { readJsonFile } from '../context.js';
import type { Column } from '../../ui/output.js';
import type { Plugin, PluginUpdate } from '../../client/index.js';

/** Parsed plugin field flags. */
export interface PluginFlags {
  name?: string;
  type?: string;
  description?: string;
  webhookUrl?: string;
  events?: string[];
  scopes?: string[];
  tags?: string[];
  inputsSchema?: string;
  public?: boolean;
  private?: boolean;
}

/** Where `--inputs-schema` came from, for error messages (see `naming`). */
export function schemaFiles(input: CommandInput<PluginFlags>): Record<string, [string, string]> {
  const path = input.options.inputsSchema;
  return path === undefined ? {} : { inputsSchema: ['--inputs-schema', path] };
}

/** The request body for the flags that were given (nothing for flags left out). */
export async function pluginBody(input: CommandInput<PluginFlags>): Promise<PluginUpdate> {
  const o = input.options;
  const body: PluginUpdate = {};
  if (o.name !== undefined) body.name = o.name;
  if (o.type !== undefined) body.type = o.type;
  if (o.description !== undefined) body.description = o.description;
  if (o.webhookUrl !== undefined) body.webhookUrl = o.webhookUrl;
  if (o.events !== undefined) body.events = o.events;
  if (o.scopes !== undefined) body.scopes = o.scopes;
  if (o.tags !== undefined) body.tags = o.tags;
  if (o.inputsSchema !== undefined) body.inputsSchema = await readJsonFile('--inputs-schema', o.inputsSchema);
  if (o.public) body.isPublic = true;
  if (o.private) body.isPublic = false;
  return body;
}

/** Columns of plugin tables. */
export const pluginColumns: Column<Plugin>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'NAME', value: (p) => p.name },
  { header: 'TYPE', value: (p) => p.type },
  { header: 'PUBLIC', value: (p) => (p.isPublic ? 'yes' : 'no') },
  { header: 'VERIFIED', value: (p) => (p.webhookUrl ? (p.webhookUrlIsVerified ? 'yes' : 'no') : '-') },
  { header: 'WEBHOOK', value: (p) => p.webhookUrl },
];

/** Fields shown by `plugins get` and after create/update, in this order (the secret is left to `plugins secret`). */
export const pluginKeys = ['id', 'name', 'type', 'orgId', 'description', 'isPublic', 'webhookUrl', 'webhookUrlIsVerified', 'events', 'scopes', 'tags', 'inputsSchema', 'createdAt', 'updatedAt'];
