import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { badRequest, detail, notFound } from '../../errors.js';
import { newId, nowIso } from '../../store/ids.js';
import { parseQuery, runQuery, type QuerySpec } from '../../store/query.js';
import type { CharacterRecord } from '../../model.js';
import { validateScript } from '../../characters/index.js';
import { params, type RouteOptions } from '../common.js';
import { createCharacter, updateCharacter } from '../../services/characters.js';
import { chosenId, nameField, orgIdField, requireBodyAgent, requireBodyOrg } from './admin-common.js';

const ENGINES = ['scripted', 'openai', 'plugin'] as const;

const script = {
  type: 'array',
  maxItems: 1000,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['match', 'reply'],
    properties: { match: { type: 'string', minLength: 1, maxLength: 1000 }, reply: { type: 'string', maxLength: 32 * 1024 } },
  },
} as const;

// Every optional field may be null in a PATCH, which removes it (agentId becomes null).
const editable = {
  name: nameField,
  agentId: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
  persona: { type: ['string', 'null'], maxLength: 32 * 1024 },
  engine: { enum: [...ENGINES, null] },
  script: { anyOf: [script, { type: 'null' }] },
  fallbackReply: { type: ['string', 'null'], maxLength: 32 * 1024 },
  packetSize: { type: ['integer', 'null'], minimum: 1, maximum: 10_000 },
  packetIntervalMs: { type: ['integer', 'null'], minimum: 0, maximum: 60_000 },
} as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['orgId', 'name'],
  properties: { id: chosenId, orgId: orgIdField, ...editable },
} as const;

const patchBody = { type: 'object', additionalProperties: false, minProperties: 1, properties: editable } as const;

export const CHARACTER_QUERY: QuerySpec = {
  fields: { id: 'string', orgId: 'string', agentId: 'string', name: 'string', engine: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name', 'persona'],
};

type CharacterFields = Partial<Record<keyof typeof editable, unknown>>;

function checkScript(value: unknown): void {
  const problems = validateScript(value ?? undefined, ['script']);
  if (problems.length > 0) {
    throw badRequest(`Invalid script: ${problems[0].path.join('.')} ${problems[0].message}`, problems.map((p) => detail(p.path, 'invalid_string', 'a valid regular expression', undefined, `${p.path.join('.')} ${p.message}`)));
  }
}

/** Applies a create or PATCH body to a character: null removes a field. */
function applyFields(record: CharacterRecord, fields: CharacterFields): CharacterRecord {
  const next: Record<string, unknown> = { ...record };
  for (const [key, value] of Object.entries(fields)) {
    if (value === null) {
      if (key === 'agentId') next.agentId = null;
      else delete next[key];
    } else if (value !== undefined) next[key] = value;
  }
  return next as unknown as CharacterRecord;
}

/**
 * Admin API for characters (`/_emulator/characters`, behind the admin guard): create, list (the shared
 * query system, e.g. `?orgId=org_dev` for a character picker), read and change.
 */
export default async function adminCharacterRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;

  app.get('/characters', async (request) => {
    const query = parseQuery(request.query as Record<string, string>, CHARACTER_QUERY);
    const result = runQuery(db.characters, query, CHARACTER_QUERY);
    return ok(result.data, { pagination: result.pagination });
  });

  app.get('/characters/:characterId', { schema: { params: params('characterId') } }, async (request) => {
    const { characterId } = request.params as { characterId: string };
    const character = db.characters.get(characterId);
    if (!character) throw notFound('character', characterId);
    return ok(character);
  });

  app.post('/characters', { schema: { body: createBody } }, async (request, reply) => {
    const body = request.body as { id?: string; orgId: string; name: string } & CharacterFields;
    requireBodyOrg(services, body.orgId);
    if (typeof body.agentId === 'string') requireBodyAgent(services, body.agentId, body.orgId);
    checkScript(body.script);
    const id = body.id ?? newId('char');
    const now = nowIso();
    const { id: _id, orgId, ...fields } = body;
    const character = await createCharacter(services, applyFields({ id, orgId, agentId: null, name: body.name, engine: 'scripted', createdAt: now, updatedAt: now }, fields));
    reply.status(201);
    return ok(character);
  });

  app.patch('/characters/:characterId', { schema: { params: params('characterId'), body: patchBody } }, async (request) => {
    const { characterId } = request.params as { characterId: string };
    const character = db.characters.get(characterId);
    if (!character) throw notFound('character', characterId);
    const body = request.body as CharacterFields;
    if (typeof body.agentId === 'string') requireBodyAgent(services, body.agentId, character.orgId);
    checkScript(body.script);
    return ok(await updateCharacter(services, characterId, (current) => applyFields(current, body)));
  });
}
