import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { typed, type RouteOptions } from '../api/common.js';
import type { AdminDeps } from './common.js';
import {
  Ok,
  ScenarioTagSchema,
  ScenarioTagUpdateSchema,
  errorResponses,
} from '../../src/shared/contract/index.js';

/** The running scenario: `PUT /scenario` `{ "name": "…" }` tags the deliveries emitted from now on (`scenario` on each), `{ "name": null }` stops. */
export default async function adminScenarioRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { dispatcher } = services;
  const tag = Ok(ScenarioTagSchema);

  app.get(
    '/scenario',
    { schema: { response: { 200: tag, ...errorResponses(401, 403) } } },
    async () => ok({ name: dispatcher.scenario }),
  );

  app.put(
    '/scenario',
    {
      schema: {
        body: ScenarioTagUpdateSchema,
        response: { 200: tag, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request) => {
      dispatcher.tagScenario(request.body.name);
      return ok({ name: dispatcher.scenario });
    },
  );
}
