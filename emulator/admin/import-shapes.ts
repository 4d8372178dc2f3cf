import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import {
  ActionSchema,
  AgentSchema,
  CharacterSchema,
  ConversationSchema,
  DeliverySchema,
  ExternalEventSchema,
  FileSchema,
  MessageSchema,
  PluginInstanceSchema,
  PluginSchema,
  RepositorySchema,
  SHARED_SCHEMAS,
} from '#contract';
import { detail, type ErrorDetail } from '../errors.js';

/**
 * What an imported record must hold, per collection: the fields the emulator reads without checking
 * again, each with its JSON type (other fields are kept as they are). `s` string, `s?` string, null or
 * absent, `b` boolean, `S` array of strings, `a` array, `o` object, `adder?` who added a repository's
 * file (null or absent: not recorded), `e:A|B` one of the strings listed.
 */
const SHAPES: Record<string, Record<string, string>> = {
  users: { name: 's' },
  orgs: { name: 's' },
  memberships: { orgId: 's', userId: 's', role: 'e:OWNER|MEMBER|VIEWER' },
  tokens: {
    kind: 'e:user|instance',
    hash: 's',
    name: 's',
    userId: 's?',
    orgId: 's?',
    instanceId: 's?',
    revokedAt: 's?',
  },
  apiKeys: { hash: 's', orgId: 's', name: 's' },
  plugins: {
    orgId: 's',
    name: 's',
    type: 'e:EVENT_HANDLER|APP|DATA_PROVIDER',
    events: 'S',
    scopes: 'S',
    tags: 'S',
    inputsSchema: 'o',
    isPublic: 'b',
    webhookUrl: 's?',
    webhookUrlIsVerified: 'b',
    webhookSecret: 's',
  },
  actions: { pluginId: 's', name: 's' },
  externalEvents: { pluginId: 's', name: 's' },
  repositories: { orgId: 's', name: 's' },
  agents: { orgId: 's', name: 's' },
  characters: { orgId: 's', name: 's', agentId: 's?' },
  conversations: { characterId: 's', orgId: 's' },
  messages: {
    conversationId: 's',
    sender: 'e:USER|CHARACTER',
    content: 's',
    attachments: 'a',
    isStreaming: 'b',
  },
  instances: {
    pluginId: 's',
    orgId: 's',
    entityId: 's',
    name: 's',
    events: 'S',
    scopes: 'S',
    inputs: 'o',
  },
  deliveries: { pluginId: 's', orgId: 's', eventId: 's', status: 's', attempts: 'a', event: 'o' },
  files: { fileName: 's', orgId: 's', storageKey: 's', isPublic: 'b' },
  repositoryFiles: { repositoryId: 's', fileId: 's', addedBy: 'adder?' },
};

/** Fields every record holds. */
const COMMON: Record<string, string> = { createdAt: 's', updatedAt: 's' };

/** Each type of SHAPES: its test, and how a problem names it. */
const TYPES: Record<string, { fits: (value: unknown) => boolean; name: string }> = {
  s: { fits: (v) => typeof v === 'string', name: 'a string' },
  's?': {
    fits: (v) => v === null || v === undefined || typeof v === 'string',
    name: 'a string, null or absent',
  },
  b: { fits: (v) => typeof v === 'boolean', name: 'a boolean' },
  a: { fits: (v) => Array.isArray(v), name: 'an array' },
  S: {
    fits: (v) => Array.isArray(v) && v.every((item) => typeof item === 'string'),
    name: 'an array of strings',
  },
  o: { fits: (v) => v !== null && typeof v === 'object' && !Array.isArray(v), name: 'an object' },
  'adder?': {
    fits: isAdder,
    name: '{ kind: "user", userId } or { kind: "instance", instanceId }, null or absent',
  },
};

/** A repository file's `addedBy` as the emulator records it (the list presents it as it is). */
function isAdder(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  const adder = value as Record<string, unknown>;
  const keys = Object.keys(adder).sort().join(',');
  if (adder.kind === 'user') return keys === 'kind,userId' && typeof adder.userId === 'string';
  if (adder.kind === 'instance')
    return keys === 'instanceId,kind' && typeof adder.instanceId === 'string';
  return false;
}

function typeOf(type: string): (typeof TYPES)[string] {
  const allowed = type.slice(2).split('|');
  return (
    TYPES[type] ?? {
      fits: (v) => typeof v === 'string' && allowed.includes(v),
      name: `one of ${allowed.join(', ')}`,
    }
  );
}

/**
 * The collections whose records are the contract's resources as the API answers them (plus fields never shown, such as a
 * delivery's secret): an imported record is held to the resource's schema too, so that no record the API would fail to
 * answer (a plugin without its description, an attempt that is not an object) gets into the store.
 */
const RESOURCES: Record<string, TSchema> = {
  plugins: PluginSchema,
  actions: ActionSchema,
  externalEvents: ExternalEventSchema,
  repositories: RepositorySchema,
  agents: AgentSchema,
  characters: CharacterSchema,
  conversations: ConversationSchema,
  messages: MessageSchema,
  instances: PluginInstanceSchema,
  deliveries: DeliverySchema,
  files: FileSchema,
};

let resourceValidators: Map<string, ValidateFunction> | undefined;

/** The resources' validators, compiled at the first import of the process. */
function validatorOf(collection: string): ValidateFunction | undefined {
  if (!resourceValidators) {
    // strict: false, for the contract's annotations (the OpenAPI document's extensions) that are no JSON Schema keywords.
    const ajv = new Ajv({ strict: false, schemas: [...SHARED_SCHEMAS] });
    resourceValidators = new Map(
      Object.entries(RESOURCES).map(([name, schema]) => [name, ajv.compile(schema)]),
    );
  }
  return resourceValidators.get(collection);
}

/** The first problem of each record that is not its resource, up to `limit` in all (with the ones found before). */
function resourceProblems(
  collections: Readonly<Record<string, ReadonlyArray<Record<string, unknown>> | undefined>>,
  problems: ErrorDetail[],
  limit: number,
): ErrorDetail[] {
  for (const [name, records = []] of Object.entries(collections)) {
    const validate = validatorOf(name);
    if (!validate) continue;
    for (let i = 0; i < records.length && problems.length < limit; i++) {
      if (validate(records[i])) continue;
      const error = validate.errors![0];
      const path = ['collections', name, String(i), ...error.instancePath.split('/').slice(1)];
      const missing = error.keyword === 'required' ? String(error.params.missingProperty) : null;
      if (missing) path.push(missing);
      problems.push(
        detail(
          path,
          'invalid_type',
          `the API's ${name} record`,
          missing ? undefined : valueAt(records[i], error.instancePath),
          `${path.join('.')} ${missing ? 'is missing' : error.message} (record ${String(records[i].id)})`,
        ),
      );
    }
  }
  return problems;
}

/** The value at a JSON pointer of `record` (for the problem's `received`). */
function valueAt(record: unknown, pointer: string): unknown {
  let value = record;
  for (const key of pointer.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

/** The first `limit` problems with the shape of an import's records, each under `collections.<name>.<index>.<field>`. */
export function importShapeProblems(
  collections: Readonly<Record<string, ReadonlyArray<Record<string, unknown>> | undefined>>,
  limit = 20,
): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const [name, records = []] of Object.entries(collections)) {
    const shape = Object.entries({ ...COMMON, ...(SHAPES[name] ?? {}) }).map(
      ([field, type]) => [field, typeOf(type)] as const,
    );
    for (let i = 0; i < records.length; i++) {
      for (const [field, expected] of shape) {
        const value = records[i][field];
        if (expected.fits(value)) continue;
        const path = ['collections', name, String(i), field];
        problems.push(
          detail(
            path,
            'invalid_type',
            expected.name,
            value,
            `${path.join('.')} must be ${expected.name} (record ${String(records[i].id)})`,
          ),
        );
        if (problems.length >= limit) return problems;
      }
    }
  }
  // The fields the emulator reads first, by name; then, where those hold, each record against its resource.
  return problems.length > 0 ? problems : resourceProblems(collections, problems, limit);
}
