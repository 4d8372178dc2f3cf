import { detail, type ErrorDetail } from '../errors.js';

/**
 * What an imported record must hold, per collection: the fields the emulator reads without checking
 * again, each with its JSON type (other fields are kept as they are). `s` string, `s?` string, null or
 * absent, `b` boolean, `S` array of strings, `a` array, `o` object, `e:A|B` one of the strings listed.
 */
const SHAPES: Record<string, Record<string, string>> = {
  users: { name: 's' },
  orgs: { name: 's' },
  memberships: { orgId: 's', userId: 's', role: 'e:OWNER|MEMBER|VIEWER' },
  tokens: { kind: 'e:user|instance', hash: 's', name: 's', userId: 's?', orgId: 's?', instanceId: 's?', revokedAt: 's?' },
  apiKeys: { hash: 's', orgId: 's', name: 's' },
  plugins: { orgId: 's', name: 's', type: 'e:EVENT_HANDLER|APP|DATA_PROVIDER', events: 'S', scopes: 'S', tags: 'S', inputsSchema: 'o', isPublic: 'b', webhookUrl: 's?', webhookUrlIsVerified: 'b', webhookSecret: 's' },
  actions: { pluginId: 's', name: 's' },
  externalEvents: { pluginId: 's', name: 's' },
  repositories: { orgId: 's', name: 's' },
  agents: { orgId: 's', name: 's' },
  characters: { orgId: 's', name: 's', agentId: 's?' },
  conversations: { characterId: 's', orgId: 's' },
  messages: { conversationId: 's', sender: 'e:USER|CHARACTER', content: 's', attachments: 'a', isStreaming: 'b' },
  instances: { pluginId: 's', orgId: 's', entityId: 's', name: 's', events: 'S', scopes: 'S', inputs: 'o' },
  deliveries: { pluginId: 's', orgId: 's', eventId: 's', status: 's', attempts: 'a', event: 'o' },
  files: { fileName: 's', orgId: 's', storageKey: 's', isPublic: 'b' },
  repositoryFiles: { repositoryId: 's', fileId: 's' },
};

/** Fields every record holds. */
const COMMON: Record<string, string> = { createdAt: 's', updatedAt: 's' };

function fits(value: unknown, type: string): boolean {
  switch (type) {
    case 's':
      return typeof value === 'string';
    case 's?':
      return value === null || value === undefined || typeof value === 'string';
    case 'b':
      return typeof value === 'boolean';
    case 'a':
      return Array.isArray(value);
    case 'S':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'o':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return typeof value === 'string' && type.slice(2).split('|').includes(value);
  }
}

function describeType(type: string): string {
  const names: Record<string, string> = { s: 'a string', 's?': 'a string, null or absent', b: 'a boolean', a: 'an array', S: 'an array of strings', o: 'an object' };
  return names[type] ?? `one of ${type.slice(2).split('|').join(', ')}`;
}

/** The first `limit` problems with the shape of an import's records, each under `collections.<name>.<index>.<field>`. */
export function importShapeProblems(collections: Readonly<Record<string, ReadonlyArray<Record<string, unknown>> | undefined>>, limit = 20): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const [name, records = []] of Object.entries(collections)) {
    const shape = { ...COMMON, ...(SHAPES[name] ?? {}) };
    for (let i = 0; i < records.length; i++) {
      for (const [field, type] of Object.entries(shape)) {
        const value = records[i][field];
        if (fits(value, type)) continue;
        const path = ['collections', name, String(i), field];
        problems.push(detail(path, 'invalid_type', describeType(type), value, `${path.join('.')} must be ${describeType(type)} (record ${String(records[i].id)})`));
        if (problems.length >= limit) return problems;
      }
    }
  }
  return problems;
}
