import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_JSON_DEPTH } from '../json-body.js';
import { ok } from '../http.js';
import { badRequest } from '../errors.js';
import { importStore } from '../services/store.js';
import { nowIso } from '../store/ids.js';
import type { BaseRecord, Collection } from '../store/store.js';
import type { RouteOptions } from './common.js';

/** The `format` field of an export file, so an import can tell it from any other JSON. */
export const EXPORT_FORMAT = 'plugsmith-emulator-export';
export const EXPORT_VERSION = 1;

/** An export: every record of every collection, as stored (secrets only as hashes). */
export interface EmulatorExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  collections: Record<string, BaseRecord[]>;
}

/** Exports can be large; the management API's 1 MB default would refuse most of them. */
const IMPORT_BODY_LIMIT = 200 * 1024 * 1024;

/**
 * Export, import and reset of the whole store under /_emulator (an export holds webhook
 * secrets and delivery bodies with installation tokens: the admin surface's guard decides who may call).
 */
export default async function adminStoreRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const collections = Object.values(services.db) as Array<Collection<BaseRecord>>;
  const names = collections.map((c) => c.name);

  app.get('/export', async () => {
    const out: EmulatorExport = { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: nowIso(), collections: {} };
    for (const c of collections) out.collections[c.name] = [...c.values()];
    return ok(out);
  });

  const importBody = {
    type: 'object',
    required: ['format', 'version', 'collections'],
    additionalProperties: false,
    properties: {
      format: { const: EXPORT_FORMAT },
      version: { const: EXPORT_VERSION },
      exportedAt: { type: 'string' },
      collections: {
        type: 'object',
        additionalProperties: false,
        properties: Object.fromEntries(
          names.map((n) => [n, { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 200 } } } }]),
        ),
      },
    },
  } as const;

  // Exported records sit a few levels deeper than the bodies that made them (a schema inside a
  // plugin inside collections; an instance's inputs inside a logged delivery): twice the usual limit.
  // A collection holds as many records as the store had: no cap on array length (the body limit bounds it).
  app.post('/import', { schema: { body: importBody }, bodyLimit: IMPORT_BODY_LIMIT, config: { maxJsonDepth: 2 * MAX_JSON_DEPTH, maxJsonArrayItems: Number.MAX_SAFE_INTEGER } }, async (request) => {
    const body = request.body as EmulatorExport;
    const counts = await importStore(services, body.collections);
    return ok({ imported: true, counts });
  });

  app.post('/reset', async () => {
    if (!services.reset) throw badRequest('This emulator cannot be reset through the admin API', []);
    await services.reset();
    return ok({ reset: true });
  });
}
