import type { RunCommand, CommandInput, TargetFlags } from '../types.js';
import type { ListFlags } from '../list-options.js';
import {
  confirmDeletion,
  naming,
  printList,
  printRecord,
  readJsonFile,
  withClient,
} from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { askText } from '../../ui/dialogs.js';
import { printResult } from '../../ui/output.js';
import type { ActionsResource, PlatformClient } from '../../client/index.js';

/** Actions and external events alike: named definitions under a plugin, with schemas read from files. */
interface DefinitionKind {
  noun: string;
  plural: string;
  /** The command group: `actions`, `events`. */
  command: string;
  resource: (client: PlatformClient) => ActionsResource;
  /** Flag and body field of each schema, e.g. ['--args-schema', 'argsSchema']; the field is also the flag's option key. */
  schemas: Array<[flag: string, field: string]>;
}

/** Plugin actions, with argument and return-value schemas. */
export const ACTIONS: DefinitionKind = {
  noun: 'action',
  plural: 'actions',
  command: 'actions',
  resource: (client) => client.actions,
  schemas: [
    ['--args-schema', 'argsSchema'],
    ['--return-schema', 'returnSchema'],
  ],
};

/** Plugin external events, with a payload schema. */
export const EXTERNAL_EVENTS: DefinitionKind = {
  noun: 'external event',
  plural: 'external events',
  command: 'events',
  resource: (client) => client.externalEvents,
  schemas: [['--payload-schema', 'payloadSchema']],
};

interface DefinitionFlags {
  name?: string;
  title?: string;
  description?: string;
  [schemaFlag: string]: unknown;
}

/** The body for the flags given, and which file each schema field came from. */
async function bodyOf(
  kind: DefinitionKind,
  input: CommandInput<DefinitionFlags & TargetFlags>,
): Promise<{ body: Record<string, unknown>; files: Record<string, [string, string]> }> {
  const o = input.options;
  const body: Record<string, unknown> = {};
  const files: Record<string, [string, string]> = {};
  if (o.title !== undefined) body.title = o.title;
  if (o.description !== undefined) body.description = o.description;
  for (const [flag, field] of kind.schemas) {
    const path = o[field];
    if (typeof path === 'string') {
      body[field] = await readJsonFile(flag, path);
      files[field] = [flag, path];
    }
  }
  return { body, files };
}

function keys(kind: DefinitionKind): string[] {
  return [
    'name',
    'title',
    'description',
    ...kind.schemas.map(([, field]) => field),
    'createdAt',
    'updatedAt',
  ];
}

/** `<noun>s list <pluginId>` */
export function runList(kind: DefinitionKind): RunCommand<ListFlags & TargetFlags> {
  return (input) =>
    withClient(input, { token: true }, (client) =>
      printList(
        input,
        (q) => kind.resource(client).list(input.args[0], q),
        [
          { header: 'NAME', value: (d) => d.name },
          { header: 'TITLE', value: (d) => d.title },
          { header: 'DESCRIPTION', value: (d) => d.description },
        ],
        kind.plural,
        // -q prints what get, update and delete take: the name, not the id.
        'name',
      ),
    );
}

/** `<noun>s get <pluginId> <name>` */
export function runGet(kind: DefinitionKind): RunCommand<TargetFlags> {
  return async (input) => {
    const record = await withClient(input, { token: true }, (client) =>
      kind.resource(client).get(input.args[0], input.args[1]),
    );
    printRecord(input, record, keys(kind), 'name');
  };
}

/** `<noun>s create <pluginId> --name …` */
export function runCreate(kind: DefinitionKind): RunCommand<DefinitionFlags & TargetFlags> {
  return async (input) => {
    const { body, files } = await bodyOf(kind, input);
    const name =
      input.options.name ??
      (await askText(input.io, {
        flag: '--name',
        message: `${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} name:`,
      }));
    const pluginId = input.args[0];
    const record = await withClient(input, { token: true }, (client) =>
      naming(files, () => kind.resource(client).create(pluginId, { ...body, name })),
    ).catch((error: { name?: string; status?: number }) => {
      // The API's answer names its PUT; a person at the CLI changes it with the CLI.
      if (error?.name === 'ApiError' && error.status === 409)
        throw new UserError(
          `plugin ${pluginId} already has an ${kind.noun} named ${name}: change it with \`plugsmith ${kind.command} update ${pluginId} ${name} …\`, or delete it first (HTTP 409 CONFLICT)`,
          EXIT.CONFLICT,
        );
      throw error;
    });
    printRecord(input, record, keys(kind), 'name');
  };
}

/** `<noun>s update <pluginId> <name> …` (renaming with --name is allowed). */
export function runUpdate(kind: DefinitionKind): RunCommand<DefinitionFlags & TargetFlags> {
  return async (input) => {
    const { body, files } = await bodyOf(kind, input);
    const rename = input.options.name;
    if (rename !== undefined) body.name = rename;
    if (Object.keys(body).length === 0) {
      const flags = ['--name', '--title', '--description', ...kind.schemas.map(([flag]) => flag)];
      throw new UserError(
        `nothing to update: pass at least one of ${flags.join(', ')}`,
        EXIT.USAGE,
      );
    }
    const record = await withClient(input, { token: true }, (client) =>
      naming(files, () => kind.resource(client).update(input.args[0], input.args[1], body)),
    );
    printRecord(input, record, keys(kind), 'name');
  };
}

/** `<noun>s delete <pluginId> <name>` */
export function runDelete(kind: DefinitionKind): RunCommand<{ yes?: boolean } & TargetFlags> {
  return async (input) => {
    const [pluginId, name] = input.args;
    await confirmDeletion(input, `${kind.noun} ${name} of plugin ${pluginId}`);
    const result = await withClient(input, { token: true }, (client) =>
      kind.resource(client).delete(pluginId, name),
    );
    printResult(
      input.io,
      input.global,
      result ?? { name, deleted: true },
      () => `deleted ${kind.noun} ${name}\n`,
    );
  };
}
