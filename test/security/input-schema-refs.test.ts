import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import {
  checkJsonSchema,
  MAX_SCHEMA_EXPANDED_NODES,
  validateAgainst,
} from '../../emulator/validation/json-schema.js';
import { ROLES_SEED, TOKENS } from '../kit/roles-seed.js';
import { call } from '../kit/http.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

// Issue 24 audit, gap A: MAX_SCHEMA_NODES bounds a supplied schema's size, not how often its checks
// run. `$ref` let a 201-value schema expand exponentially: 19 definitions each `allOf` two refs to the
// next, ending in `{ type: 'string', format: 'url' }`, held a MEMBER's install 21 s (a 500); ending in
// `{ type: 'integer' }`, 24 levels collected 2^24 errors and the process died of heap exhaustion.
// A supplied schema is now measured with every `$ref` inlined (MAX_SCHEMA_EXPANDED_NODES), refs must
// be local JSON pointers, and recursive schemas (a `$ref` that reaches itself) are refused.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED });
});

/** The audit's schema: `d` definitions, each allOf two refs to the next, then `leaf`. */
function doubling(d: number, leaf: Record<string, unknown>): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (let i = 0; i < d; i++)
    definitions[`L${i}`] = {
      allOf: [{ $ref: `#/definitions/L${i + 1}` }, { $ref: `#/definitions/L${i + 1}` }],
    };
  definitions[`L${d}`] = leaf;
  return { type: 'object', properties: { u: { $ref: '#/definitions/L0' } }, definitions };
}

const createPlugin = (inputsSchema: unknown) =>
  call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
    token: `Bearer ${TOKENS.member}`,
    body: { name: 'refs', type: 'APP', events: [], scopes: [], inputsSchema },
  });

/** A 400 whose detail of `code` lies under `path` (where the expansion first passed the limit, for schema_too_large). */
function expectRefused(
  res: { status: number; body: any },
  code: string,
  path: string[],
  message: RegExp,
) {
  expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(400);
  const found = res.body.error.details.find((d: any) => d.code === code);
  expect(found, JSON.stringify(res.body.error).slice(0, 400)).toBeDefined();
  expect(found.path.slice(0, path.length)).toEqual(path);
  expect(found.message).toMatch(message);
}

describe('supplied schemas are bounded with every $ref inlined', () => {
  it("the audit's url schema (19 doubling levels) is refused at plugin creation, naming the limit", async () => {
    const plugins = emulatorInternals(emu).db.plugins.size;
    const res = await createPlugin(doubling(19, { type: 'string', format: 'url' }));
    expectRefused(res, 'schema_too_large', ['inputsSchema'], /MAX_SCHEMA_EXPANDED_NODES/);
    expect(res.body.error.details[0].message).toContain(String(MAX_SCHEMA_EXPANDED_NODES));
    expect(emulatorInternals(emu).db.plugins.size).toBe(plugins);
  });

  it("the audit's heap-exhaustion schema (24 levels of integer checks) is refused at plugin creation", async () => {
    expectRefused(
      await createPlugin(doubling(24, { type: 'integer' })),
      'schema_too_large',
      ['inputsSchema'],
      /MAX_SCHEMA_EXPANDED_NODES/,
    );
  });

  it('definitions count where a $ref names them: 7 doubling levels (128 leaves) fit, 8 do not', () => {
    expect(
      checkJsonSchema(doubling(7, { type: 'string', format: 'url' }), ['inputsSchema']),
    ).toEqual([]);
    const refused = checkJsonSchema(doubling(8, { type: 'string', format: 'url' }), [
      'inputsSchema',
    ]);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      code: 'schema_too_large',
      path: ['inputsSchema', 'definitions', 'L0'],
    });
  });

  it('action and external-event schemas are measured the same way', async () => {
    const made = await createPlugin({ type: 'object' });
    expect(made.status).toBe(201);
    const id = made.body.data.id;
    const post = (path: string, body: unknown) =>
      call(emu.url, 'POST', path, { token: `Bearer ${TOKENS.member}`, body });
    const big = doubling(12, { type: 'integer' });
    expectRefused(
      await post(`/api/plugins/${id}/actions`, { name: 'act', argsSchema: big }),
      'schema_too_large',
      ['argsSchema'],
      /MAX_SCHEMA_EXPANDED_NODES/,
    );
    expectRefused(
      await post(`/api/plugins/${id}/actions`, { name: 'act', returnSchema: big }),
      'schema_too_large',
      ['returnSchema'],
      /MAX_SCHEMA_EXPANDED_NODES/,
    );
    expectRefused(
      await post(`/api/plugins/${id}/external-events`, { name: 'evt', payloadSchema: big }),
      'schema_too_large',
      ['payloadSchema'],
      /MAX_SCHEMA_EXPANDED_NODES/,
    );
  });

  it('a schema with shared definitions (a few refs, draft-07 and 2020-12) is accepted and validates', async () => {
    const address = {
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
      required: ['street'],
    };
    const draft07 = {
      type: 'object',
      definitions: { address, name: { type: 'string', minLength: 1 } },
      properties: {
        home: { $ref: '#/definitions/address' },
        work: { $ref: '#/definitions/address' },
        first: { $ref: '#/definitions/name' },
        last: { $ref: '#/definitions/name' },
      },
      required: ['home'],
    };
    const made = await createPlugin(draft07);
    expect(made.status, JSON.stringify(made.body).slice(0, 300)).toBe(201);
    expect(
      validateAgainst(draft07, { home: { street: 'Main' }, first: 'Ada' }, ['inputs']),
    ).toEqual([]);
    const problems = validateAgainst(
      draft07,
      { home: { zip: '1' }, work: { street: 'x', zip: 'abcde' }, first: '' },
      ['inputs'],
    );
    expect(problems.map((p) => p.path.join('.')).sort()).toEqual([
      'inputs.first',
      'inputs.home.street',
      'inputs.home.zip',
      'inputs.work.zip',
    ]);
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { 'a b': { type: 'string' }, 'c/d': { type: 'integer' }, yes: true },
      properties: {
        x: { $ref: '#/$defs/a%20b' },
        y: { $ref: '#/$defs/c~1d' },
        z: { $ref: '#/$defs/yes' },
      },
    };
    expect((await createPlugin(draft2020)).status).toBe(201);
    expect(
      validateAgainst(draft2020, { x: 1, y: 'no', z: 3 }, ['inputs'])
        .map((p) => p.path.join('.'))
        .sort(),
    ).toEqual(['inputs.x', 'inputs.y']);
    // Names that are keywords elsewhere are names here; `$ref` and `$id` inside examples are data.
    const names = {
      type: 'object',
      properties: { $ref: { type: 'string' }, $id: { type: 'string' }, enum: { type: 'string' } },
      examples: [{ $ref: '#', $id: 'x' }],
    };
    expect((await createPlugin(names)).status).toBe(201);
  });

  it('a recursive schema is refused with a clear message', async () => {
    // Each would repeat its checks once per level of the data, or (allOf of #) forever on one value.
    const linked = {
      type: 'object',
      properties: { value: { type: 'integer' }, next: { $ref: '#' } },
    };
    expectRefused(
      await createPlugin(linked),
      'schema_recursive',
      ['inputsSchema', 'properties', 'next', '$ref'],
      /recursive schemas are not supported/,
    );
    expectRefused(
      await createPlugin({ allOf: [{ $ref: '#' }] }),
      'schema_recursive',
      ['inputsSchema', 'allOf', '0', '$ref'],
      /refers back/,
    );
    const mutual = {
      type: 'object',
      properties: { t: { $ref: '#/definitions/a' } },
      definitions: {
        a: { properties: { b: { $ref: '#/definitions/b' } } },
        b: { allOf: [{ $ref: '#/definitions/a' }, { $ref: '#/definitions/a' }] },
      },
    };
    expectRefused(
      await createPlugin(mutual),
      'schema_recursive',
      ['inputsSchema', 'definitions', 'b', 'allOf', '0', '$ref'],
      /refers back/,
    );
  });

  it('refs that are not local JSON pointers, dynamic refs and nested $id are refused', async () => {
    expectRefused(
      await createPlugin({ properties: { a: { $ref: 'https://example.com/s.json' } } }),
      'invalid_schema',
      ['inputsSchema', 'properties', 'a', '$ref'],
      /only local references/,
    );
    expectRefused(
      await createPlugin({ properties: { a: { $ref: '#/definitions/missing' } } }),
      'invalid_schema',
      ['inputsSchema', 'properties', 'a', '$ref'],
      /names no schema/,
    );
    expectRefused(
      await createPlugin({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $dynamicAnchor: 'n',
        properties: { a: { $dynamicRef: '#n' } },
      }),
      'invalid_schema',
      ['inputsSchema', 'properties', 'a', '$dynamicRef'],
      /not supported/,
    );
    expectRefused(
      await createPlugin({
        properties: {
          a: {
            $id: 'https://example.com/other',
            definitions: { x: { type: 'string' } },
            $ref: '#/definitions/x',
          },
        },
      }),
      'invalid_schema',
      ['inputsSchema', 'properties', 'a', '$id'],
      /nested \$id/,
    );
  });

  it('a stored exponential schema (an import) is never run: validating against it is one problem, at once', () => {
    const problems = validateAgainst(doubling(14, { type: 'integer' }), { u: 'x' }, ['inputs']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'invalid_schema' });
    expect(problems[0].message).toContain('MAX_SCHEMA_EXPANDED_NODES');
  });
});
