// emulator/schema-compilers.ts reaches into fastify's own schema compilers so that route schemas are
// compiled on first use, once per process. A fastify upgrade that changes those compilers must fail
// here rather than silently stop validating, stop filtering responses, or compile on every start.
import { request } from 'undici';
import { expect, test, vi } from 'vitest';

async function call(url: string, token: string, method: 'GET' | 'POST', body?: unknown) {
  const res = await request(url, {
    method,
    headers: { authorization: token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

test('bodies are validated, responses written from their schema, and a second emulator compiles no route schema again', async () => {
  // The emulator's modules as a fresh process has them (test files share their worker): no route
  // schema compiled yet by an emulator of an earlier file.
  vi.resetModules();
  const { startEmulator } = await import('../../emulator/index.js');
  const { compiled } = await import('../../emulator/schema-compilers.js');
  const first = await startEmulator();
  const second = await startEmulator();
  try {
    const beforeFirst = { ...compiled };
    // Validation: a 400 with details from the route's body schema.
    const bad = await call(`${first.url}/api/orgs/org_dev/repositories`, first.token!, 'POST', {
      name: 12,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: ['name'] })]),
    );
    // Serialization: a field the response schema does not name never leaves the server.
    const created = await call(`${first.url}/api/orgs/org_dev/repositories`, first.token!, 'POST', {
      name: 'compiled',
    });
    expect(created.status).toBe(201);
    const stored = first.services.db.repositories.get(created.body.data.id)!;
    await first.services.db.repositories.put({
      ...stored,
      notInTheSchema: 'hidden',
    } as typeof stored);
    const read = await call(`${first.url}/api/repositories/${stored.id}`, first.token!, 'GET');
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('notInTheSchema');
    expect(compiled.validators).toBeGreaterThan(beforeFirst.validators);
    expect(compiled.serializers).toBeGreaterThan(beforeFirst.serializers);

    // The same requests to another emulator of the process: served by what was compiled already.
    const beforeSecond = { ...compiled };
    expect(
      (
        await call(`${second.url}/api/orgs/org_dev/repositories`, second.token!, 'POST', {
          name: 12,
        })
      ).status,
    ).toBe(400);
    const again = await call(`${second.url}/api/orgs/org_dev/repositories`, second.token!, 'POST', {
      name: 'compiled',
    });
    expect(again.status).toBe(201);
    expect(
      (await call(`${second.url}/api/repositories/${again.body.data.id}`, second.token!, 'GET'))
        .status,
    ).toBe(200);
    expect(compiled.serializers).toBe(beforeSecond.serializers);
  } finally {
    await first.close();
    await second.close();
  }
});
