import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { MAX_JSON_DEPTH, MAX_JSON_OBJECT_KEYS } from '../json-body.js';
import { ok } from '../http.js';
import { importStore } from './store-service.js';
import { refuseWrongImportShape } from './import-precheck.js';
import { nowIso } from '../store/ids.js';
import type { BaseRecord, Collection } from '../store/store.js';
import { typed, type RouteOptions } from '../api/common.js';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  EmulatorExportSchema,
  ImportResultSchema,
  Ok,
  ResetResultSchema,
  StoredRecordSchema,
  errorResponses,
  type EmulatorExport,
} from '#contract';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

/** Exports can be large; the management API's 1 MB default would refuse most of them. */
const IMPORT_BODY_LIMIT = 200 * 1024 * 1024;

/** Export, import and reset of the whole store (an export holds webhook secrets and installation tokens). */
export default async function adminStoreRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const collections: Array<Collection<BaseRecord>> = Object.values(services.db);
  const names = collections.map((c) => c.name);

  // Records are exported as stored, every field: the schema keeps them open (StoredRecord).
  app.get(
    '/export',
    {
      schema: {
        operationId: 'exportStore',
        tags: ['admin-store'],
        summary: "Export the emulator's state",
        description: `${ADMIN_ONLY} writes every record of the store as one JSON document, which \`POST /_emulator/import\` takes back.`,
        response: { 200: Ok(EmulatorExportSchema), ...errorResponses(401, 403) },
      },
    },
    async () => {
      const out: EmulatorExport = {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        exportedAt: nowIso(),
        collections: {},
      };
      for (const c of collections) out.collections[c.name] = [...c.values()];
      return ok(out);
    },
  );

  // The export's schema, closed to this store's collection names, checks only the envelope and each
  // record's id (one fast ajv pass over 200 MiB); importStore checks each collection's fields.
  const importBody = Type.Object(
    {
      ...EmulatorExportSchema.properties,
      collections: Type.Object(
        Object.fromEntries(names.map((n) => [n, Type.Optional(Type.Array(StoredRecordSchema))])),
        {
          additionalProperties: false,
          description: EmulatorExportSchema.properties.collections.description,
        },
      ),
    },
    { additionalProperties: false, examples: EmulatorExportSchema.examples },
  );

  // Exported records sit a few levels deeper than the bodies that made them: twice the usual depth.
  // A collection holds as many records as the store had: no cap on its items but the body limit. An
  // object of an export holds a few collection names or a record's fields, and the bodies that made
  // records had at most MAX_JSON_OBJECT_KEYS keys per object: ten times that is refused in the text
  // scan, before JSON.parse spends seconds on an object of 500,000 keys.
  const jsonLimits = {
    maxDepth: 2 * MAX_JSON_DEPTH,
    maxArrayItems: Number.MAX_SAFE_INTEGER,
    maxObjectKeys: 10 * MAX_JSON_OBJECT_KEYS,
    maxValues: Number.MAX_SAFE_INTEGER,
  };
  const importOptions = { bodyLimit: IMPORT_BODY_LIMIT, config: { jsonLimits } };
  const importResponse = {
    200: Ok(ImportResultSchema),
    ...errorResponses(400, 401, 403, 409, 413, 415),
  };
  app.post(
    '/import',
    {
      schema: {
        operationId: 'importStore',
        tags: ['admin-store'],
        summary: "Replace the emulator's state",
        description: `${ADMIN_ONLY} replaces every record with those of an export, checked first (nothing changes on a 400); pending retries, live replies and conversation streams of before end, and \`store-replaced\` is streamed.`,
        body: importBody,
        response: importResponse,
      },
      ...importOptions,
      // Before the schema: a body of millions of wrong records is refused without a detail per record.
      preValidation: async (request) => refuseWrongImportShape(request.body, names),
    },
    async (request) => {
      const counts = await importStore(services, request.body.collections);
      return ok({ imported: true as const, counts });
    },
  );

  app.post(
    '/reset',
    {
      schema: {
        operationId: 'resetStore',
        tags: ['admin-store'],
        summary: 'Reset the emulator to its seed',
        description: `${ADMIN_ONLY} empties the store and loads the seed again (its credentials stay valid); \`store-replaced\` is streamed.`,
        response: { 200: Ok(ResetResultSchema), ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async () => {
      await services.reset();
      return ok({ reset: true as const });
    },
  );
}
