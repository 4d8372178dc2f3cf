import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { MAX_JSON_DEPTH } from '../json-body.js';
import { ok } from '../http.js';
import { importStore } from './store-service.js';
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
} from '../../src/shared/contract/index.js';
import type { AdminDeps } from './common.js';

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
    { schema: { response: { 200: Ok(EmulatorExportSchema), ...errorResponses(401, 403) } } },
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
  // A collection holds as many records as the store had: no cap on sizes but the body limit.
  const jsonLimits = {
    maxDepth: 2 * MAX_JSON_DEPTH,
    maxArrayItems: Number.MAX_SAFE_INTEGER,
    maxObjectKeys: Number.MAX_SAFE_INTEGER,
    maxValues: Number.MAX_SAFE_INTEGER,
  };
  const importOptions = { bodyLimit: IMPORT_BODY_LIMIT, config: { jsonLimits } };
  const importResponse = {
    200: Ok(ImportResultSchema),
    ...errorResponses(400, 401, 403, 409, 413, 415),
  };
  app.post(
    '/import',
    { schema: { body: importBody, response: importResponse }, ...importOptions },
    async (request) => {
      const counts = await importStore(services, request.body.collections);
      return ok({ imported: true as const, counts });
    },
  );

  app.post(
    '/reset',
    {
      schema: {
        response: { 200: Ok(ResetResultSchema), ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async () => {
      await services.reset();
      return ok({ reset: true as const });
    },
  );
}
