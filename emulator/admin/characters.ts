import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { badRequest, detail, found } from '../errors.js';
import { newId, nowIso } from '../store/ids.js';
import type { CharacterRecord } from '../model.js';
import { validateScript } from '../messaging/characters/index.js';
import { listed, params, querySpec, typed, type RouteOptions } from '../api/common.js';
import { createCharacter, updateCharacter } from '../messaging/character-service.js';
import {
  CharacterCreateSchema,
  CharacterSchema,
  CharacterUpdateSchema,
  ListQuery,
  Ok,
  OkPage,
  errorResponses,
  type CharacterUpdate,
} from '#contract';
import { requireBodyAgent, requireBodyOrg } from './common.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';
import { linksTo, MADE_ID } from '../openapi/links.js';

const CHARACTER_QUERY = querySpec(
  CharacterSchema,
  ['id', 'orgId', 'agentId', 'name', 'engine', 'createdAt', 'updatedAt'],
  ['name', 'persona'],
);

function checkScript(value: unknown): void {
  const problems = validateScript(value ?? undefined, ['script']);
  if (problems.length > 0) {
    throw badRequest(
      `Invalid script: ${problems[0].path.join('.')} ${problems[0].message}`,
      problems.map((p) =>
        detail(
          p.path,
          'invalid_string',
          'a valid regular expression',
          undefined,
          `${p.path.join('.')} ${p.message}`,
        ),
      ),
    );
  }
}

/** Applies a create or PATCH body (only a character's fields, by its schema): null removes a field, but agentId becomes null. */
function applyFields(record: CharacterRecord, fields: CharacterUpdate): CharacterRecord {
  const next: Record<string, unknown> = { ...record };
  for (const [key, value] of Object.entries(fields)) {
    // A removed field is absent from the stored record, not stored as undefined.
    if (value === null && key !== 'agentId') delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as CharacterRecord;
}

/** Admin API for characters (`/_emulator/characters`): create, list (e.g. `?orgId=org_dev`), read and change. */
export default async function adminCharacterRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
  const one = { 200: Ok(CharacterSchema), ...errors };

  app.get(
    '/characters',
    {
      schema: {
        operationId: 'listCharacters',
        tags: ['admin-messaging'],
        summary: 'List characters',
        description: `${ADMIN_ONLY} lists the characters of every org, with the query system.`,
        querystring: ListQuery(CHARACTER_QUERY),
        response: { 200: OkPage(CharacterSchema), ...errors },
      },
    },
    async (request) => listed(db.characters, request.query, CHARACTER_QUERY),
  );

  app.get(
    '/characters/:characterId',
    {
      schema: {
        operationId: 'getCharacter',
        tags: ['admin-messaging'],
        summary: 'Get a character',
        description: `${ADMIN_ONLY} reads a character.`,
        params: params('characterId'),
        response: one,
      },
    },
    async (request) => {
      const { characterId } = request.params;
      return ok(found(db.characters.get(characterId), 'character', characterId));
    },
  );

  app.post(
    '/characters',
    {
      links: {
        201: linksTo(
          'character',
          { characterId: MADE_ID },
          { getCharacter: 'Get {made}', updateCharacter: 'Update {made}' },
        ),
      },
      schema: {
        operationId: 'createCharacter',
        tags: ['admin-messaging'],
        summary: 'Create a character',
        description: `${ADMIN_ONLY} creates a character in an org (its engine, script or persona); conversations are started with it on the messaging API.`,
        body: CharacterCreateSchema,
        response: { 201: Ok(CharacterSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { id: chosen, orgId, ...fields } = request.body;
      requireBodyOrg(services, orgId);
      if (typeof fields.agentId === 'string') requireBodyAgent(services, fields.agentId, orgId);
      checkScript(fields.script);
      const now = nowIso();
      const character = await createCharacter(
        services,
        applyFields(
          {
            id: chosen ?? newId('char'),
            orgId,
            agentId: null,
            name: fields.name,
            engine: 'scripted',
            createdAt: now,
            updatedAt: now,
          },
          fields,
        ),
      );
      return reply.status(201).send(ok(character));
    },
  );

  app.patch(
    '/characters/:characterId',
    {
      schema: {
        operationId: 'updateCharacter',
        tags: ['admin-messaging'],
        summary: 'Update a character',
        description: `${ADMIN_ONLY} changes a character's fields (not its id or org).`,
        params: params('characterId'),
        body: CharacterUpdateSchema,
        response: one,
      },
    },
    async (request) => {
      const { characterId } = request.params;
      const character = found(db.characters.get(characterId), 'character', characterId);
      const body = request.body;
      if (typeof body.agentId === 'string')
        requireBodyAgent(services, body.agentId, character.orgId);
      checkScript(body.script);
      return ok(
        await updateCharacter(services, characterId, (current) => applyFields(current, body)),
      );
    },
  );
}
