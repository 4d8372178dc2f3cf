// emulator/schema-compilers.ts wraps fastify's own schema compilers so that a route's schemas are
// compiled at its first request, not at start. An upgrade that changes those compilers must fail
// here rather than silently stop validating, stop filtering responses, or compile at every start.
import { Ajv } from 'ajv';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { expect, test, vi } from 'vitest';
import { call } from '../kit/index.js';

test('a start compiles no route schema; bodies are validated and responses written from their schema at first use', async () => {
  // The emulator's modules as a fresh process has them (test files share their worker): no route
  // schema compiled yet by an emulator of an earlier file.
  vi.resetModules();
  const { startEmulator } = await import('../../emulator/index.js');
  const { compiled } = await import('../../emulator/schema-compilers.js');
  // The registry of the emulator modules just loaded (the module the file imported would not know it).
  const { emulatorInternals } = await import('../../emulator/internals.js');
  // startEmulator of the modules just loaded, not the kit's emulator() (which holds the file's own).
  const first = await startEmulator();
  try {
    expect(compiled).toEqual({ validators: 0, serializers: 0 });
    const beforeFirst = { ...compiled };
    // Validation: a 400 with details from the route's body schema.
    const bad = await call(first.url, 'POST', `/api/orgs/org_dev/repositories`, {
      token: first.token!,
      body: {
        name: 12,
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: ['name'] })]),
    );
    // Serialization: a field the response schema does not name never leaves the server.
    const created = await call(first.url, 'POST', `/api/orgs/org_dev/repositories`, {
      token: first.token!,
      body: {
        name: 'compiled',
      },
    });
    expect(created.status).toBe(201);
    const stored = emulatorInternals(first).db.repositories.get(created.body.data.id)!;
    await emulatorInternals(first).db.repositories.put({
      ...stored,
      notInTheSchema: 'hidden',
    } as typeof stored);
    const read = await call(first.url, 'GET', `/api/repositories/${stored.id}`, {
      token: first.token!,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('notInTheSchema');
    expect(compiled.validators).toBeGreaterThan(beforeFirst.validators);
    expect(compiled.serializers).toBeGreaterThan(beforeFirst.serializers);
  } finally {
    await first.close();
  }
});

test("every route schema is a valid JSON Schema (fastify's ajv trusts them: validateSchema is off)", async () => {
  const { startEmulator } = await import('../../emulator/index.js');
  const { emulatorInternals } = await import('../../emulator/internals.js');
  const { buildManagementApp, buildMessagingApp } = await import('../../emulator/app.js');
  const emu = await startEmulator();
  try {
    const services = emulatorInternals(emu);
    // Every route of both apps, the admin API's too (built with the routes' collector, as the OpenAPI document is).
    const routes: RouteOptions[] = [];
    const collect = async (app: FastifyInstance) => {
      app.addHook('onRoute', (route) => void routes.push(route));
    };
    const apps = [
      await buildManagementApp(services, collect),
      await buildMessagingApp(services, collect),
    ];
    for (const app of apps) await app.ready();
    const ajv = new Ajv({ strict: false });
    const problems: string[] = [];
    let checked = 0;
    for (const route of routes) {
      const { body, querystring, params, headers, response } = (route.schema ?? {}) as Record<
        string,
        unknown
      >;
      const parts: Array<[string, unknown]> = [
        ['body', body],
        ['querystring', querystring],
        ['params', params],
        ['headers', headers],
        ...Object.entries((response ?? {}) as Record<string, unknown>).map(
          ([status, schema]) => [`response ${status}`, schema] as [string, unknown],
        ),
      ];
      for (const [part, schema] of parts) {
        if (schema === undefined) continue;
        checked++;
        if (!ajv.validateSchema(schema as object))
          problems.push(`${route.method} ${route.url} ${part}: ${ajv.errorsText(ajv.errors)}`);
      }
    }
    for (const app of apps) await app.close();
    expect(problems).toEqual([]);
    // The collector saw the management, admin and messaging routes (some 110 routes, most with schemas).
    expect(routes.length).toBeGreaterThan(100);
    expect(checked).toBeGreaterThan(200);
  } finally {
    await emu.close();
  }
});
