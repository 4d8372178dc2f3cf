import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { badRequest, detail } from '../errors.js';
import {
  checkFaultSeed,
  FAULT_PROFILE_SYNTAX,
  FaultProfileError,
  parseFaultProfile,
} from '#shared/fault-profile';
import { typed, type RouteOptions } from '../api/common.js';
import { FaultSettingsSchema, FaultsUpdateSchema, Ok, errorResponses } from '#contract';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

/** Fault injection at run time: `GET /faults` shows the profile and seed in force, `PUT /faults` replaces them (`{ "profile": "off" }`). */
export default async function adminFaultRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { dispatcher } = services;
  const settings = Ok(FaultSettingsSchema);

  app.get(
    '/faults',
    {
      schema: {
        operationId: 'getFaults',
        tags: ['admin'],
        summary: 'Get the injected delivery faults',
        description: `${ADMIN_ONLY} reads the fault injection in force: its profile and seed.`,
        response: { 200: settings, ...errorResponses(401, 403) },
      },
    },
    async () => ok(dispatcher.faults.settings()),
  );

  app.put(
    '/faults',
    {
      schema: {
        operationId: 'setFaults',
        tags: ['admin'],
        summary: 'Set the injected delivery faults',
        description: `${ADMIN_ONLY} sets the fault injection profile and seed of webhook deliveries (\`off\` turns it off); applies to the attempts that start afterwards.`,
        body: FaultsUpdateSchema,
        response: { 200: settings, ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request) => {
      const body = request.body;
      try {
        const profile = parseFaultProfile(body.profile);
        const seed = body.seed === undefined ? undefined : checkFaultSeed(String(body.seed));
        return ok(dispatcher.faults.configure(profile, seed));
      } catch (error) {
        if (!(error instanceof FaultProfileError)) throw error;
        const field =
          body.seed !== undefined && error.problems.some((p) => p.part === String(body.seed))
            ? 'seed'
            : 'profile';
        throw badRequest(
          `invalid fault ${field}: ${error.message}`,
          error.problems.map((p) =>
            detail(
              [field],
              'invalid_fault',
              field === 'seed' ? '1 to 64 letters, digits, "_", "-" or "."' : FAULT_PROFILE_SYNTAX,
              p.part,
              p.message,
            ),
          ),
        );
      }
    },
  );
}
