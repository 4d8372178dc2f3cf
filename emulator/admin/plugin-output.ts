import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { found } from '../errors.js';
import { params, typed, type RouteOptions } from '../api/common.js';
import {
  OUTPUT_MAX_BATCH,
  Ok,
  PluginOutputAcceptedSchema,
  PluginOutputBatchSchema,
  PluginOutputPageSchema,
  PluginOutputQuerySchema,
  errorResponses,
} from '#contract';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

/** The plugin's own output: the CLI posts the lines it captured; followers read them after a cursor. */
export default async function adminPluginOutputRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db, pluginOutput } = services;

  app.post(
    '/plugins/:pluginId/output',
    {
      schema: {
        operationId: 'postPluginOutput',
        tags: ['admin-deliveries'],
        summary: "Add lines of the plugin's own output",
        description: `${ADMIN_ONLY} adds lines the plugin process wrote (the CLI posts what it captures under \`plugsmith dev\` and \`scenario run --start\`), oldest first, at most 500 per call; they are scrubbed of the secrets the emulator knows and kept in a bounded ring per plugin (the newest 2,000 lines and 512 KiB), in memory.`,
        params: params('pluginId'),
        body: PluginOutputBatchSchema,
        response: {
          200: Ok(PluginOutputAcceptedSchema),
          ...errorResponses(400, 401, 403, 404, 413, 415),
        },
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      found(db.plugins.get(pluginId), 'plugin', pluginId);
      return ok(pluginOutput.append(pluginId, request.body.lines));
    },
  );

  app.get(
    '/plugins/:pluginId/output',
    {
      schema: {
        operationId: 'readPluginOutput',
        tags: ['admin-deliveries'],
        summary: "Read the plugin's own output after a cursor",
        description: `${ADMIN_ONLY} reads the plugin's kept output after a cursor (\`after\`, default 0), oldest first; pass \`next\` back as \`after\` to follow it. \`dropped\` counts lines that fell out of the ring before they were read.`,
        params: params('pluginId'),
        querystring: PluginOutputQuerySchema,
        response: { 200: Ok(PluginOutputPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      found(db.plugins.get(pluginId), 'plugin', pluginId);
      const after = Number(request.query.after ?? 0);
      const limit = Math.min(
        Math.max(Number(request.query.limit ?? OUTPUT_MAX_BATCH), 1),
        OUTPUT_MAX_BATCH,
      );
      return ok(pluginOutput.read(pluginId, after, limit));
    },
  );
}
