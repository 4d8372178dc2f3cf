import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { typed, type RouteOptions } from '../api/common.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';
import { Ok, ScenarioTagSchema, ScenarioTagUpdateSchema, errorResponses } from '#contract';

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
    {
      schema: {
        operationId: 'getScenario',
        tags: ['admin'],
        summary: 'Get the running scenario',
        description: `${ADMIN_ONLY} reads the name of the running scenario, or null when none runs.`,
        response: { 200: tag, ...errorResponses(401, 403) },
      },
    },
    async () => ok({ name: dispatcher.scenario }),
  );

  app.put(
    '/scenario',
    {
      schema: {
        operationId: 'setScenario',
        tags: ['admin'],
        summary: 'Set or clear the running scenario',
        description: `${ADMIN_ONLY} names the running scenario (null clears it); every delivery created from then on carries that name as \`scenario\`.`,
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
