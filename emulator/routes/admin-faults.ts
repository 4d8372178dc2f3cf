import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { badRequest, detail } from '../errors.js';
import { checkFaultSeed, FAULT_PROFILE_SYNTAX, FaultProfileError, parseFaultProfile } from '../events/faults.js';
import type { RouteOptions } from './common.js';

const faultsBody = {
  type: 'object',
  additionalProperties: false,
  required: ['profile'],
  properties: {
    profile: { type: 'string', maxLength: 1000 },
    seed: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'integer', minimum: 0 }] },
  },
} as const;

/**
 * Fault injection at run time: `GET /faults` shows the profile and seed in force, `PUT /faults`
 * replaces them (`{ "profile": "off" }` turns faults off). Guarded by the admin surface.
 */
export default async function adminFaultRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { events } = services;

  app.get('/faults', async () => ok(events.faults.settings()));

  app.put('/faults', { schema: { body: faultsBody } }, async (request) => {
    const body = request.body as { profile: string; seed?: string | number };
    try {
      const profile = parseFaultProfile(body.profile);
      const seed = body.seed === undefined ? undefined : checkFaultSeed(String(body.seed));
      return ok(events.faults.configure(profile, seed));
    } catch (error) {
      if (!(error instanceof FaultProfileError)) throw error;
      const field = body.seed !== undefined && error.problems.some((p) => p.part === String(body.seed)) ? 'seed' : 'profile';
      throw badRequest(
        `invalid fault ${field}: ${error.message}`,
        error.problems.map((p) => detail([field], 'invalid_fault', field === 'seed' ? '1 to 64 letters, digits, "_", "-" or "."' : FAULT_PROFILE_SYNTAX, p.part, p.message)),
      );
    }
  });
}
