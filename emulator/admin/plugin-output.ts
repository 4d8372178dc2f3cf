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
} from '../../src/shared/contract/index.js';
import type { AdminDeps } from './common.js';

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
