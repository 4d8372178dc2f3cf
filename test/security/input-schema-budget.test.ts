import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import {
  compiledSchemaCounts,
  MAX_SCHEMA_CHARS,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_PATTERNS,
  validateAgainst,
} from '../../emulator/validation/json-schema.js';

import { runCliInProcess, tempDir, call, emulator } from '../kit/index.js';
import { emulatorInternals } from '../../emulator/internals.js';

// ajv turns a supplied JSON Schema into code on the event loop, at a cost that grows with the
// schema: an inputsSchema of 2,000 patterned properties (92 KB) held the whole emulator 8 s, 10,000
// held it over a minute. Supplied schemas are bounded (JSON values, patterns, length) and refused
// with a 400 naming the limit before anything compiles. (How long health waits during such an
// attempt is measured in `npm run bench -- --only security`, not asserted here.)

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

/** An object schema with `n` string properties, the first `patterns` of them with a pattern. */
function objectSchema(n: number, patterns = 0): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `p${i}`,
        i < patterns ? { type: 'string', pattern: `^a${i}b$` } : { type: 'string' },
      ]),
    ),
  };
}

const post = (path: string, body: unknown) =>
  call(emu.url, 'POST', path, { token: emu.token!, body });

function expectTooLarge(
  res: { status: number; body: any },
  field: string,
  limitName: string | RegExp,
) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
  const detail = res.body.error.details.find((d: any) => d.code === 'schema_too_large');
  expect(detail, JSON.stringify(res.body.error).slice(0, 300)).toBeDefined();
  expect(detail.path).toEqual([field]);
  expect(detail.message).toMatch(limitName);
}

describe('supplied JSON Schemas are bounded before they compile', () => {
  it('an inputsSchema past MAX_SCHEMA_NODES is a 400 naming the limit, and nothing was compiled or stored', async () => {
    const before = compiledSchemaCounts().validators;
    const plugins = emulatorInternals(emu).db.plugins.size;
    // 2,000 patterned properties: the audit's 8-second schema; 10,000 plain ones took 7.4 s (10,000 is refused for its length, 1,000 for its values).
    // Since issue 24 an object of over 1,000 keys is refused earlier still, when the body is parsed.
    const res = await post('/api/orgs/org_dev/plugins', {
      name: 'big',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: objectSchema(2_000, 2_000),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      code: 'too_many_keys',
      path: ['inputsSchema', 'properties'],
    });
    const patterned = await post('/api/orgs/org_dev/plugins', {
      name: 'big',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: objectSchema(1_000, 1_000),
    });
    expectTooLarge(patterned, 'inputsSchema', /MAX_SCHEMA_(NODES|PATTERNS)/);
    const plain = await post('/api/orgs/org_dev/plugins', {
      name: 'big',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: objectSchema(1_000),
    });
    expectTooLarge(plain, 'inputsSchema', 'MAX_SCHEMA_NODES');
    expect(compiledSchemaCounts().validators).toBe(before);
    expect(emulatorInternals(emu).db.plugins.size).toBe(plugins);
  });

  it('more patterns than MAX_SCHEMA_PATTERNS are a 400 naming the limit', async () => {
    const res = await post('/api/orgs/org_dev/plugins', {
      name: 'pats',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: objectSchema(MAX_SCHEMA_PATTERNS + 1, MAX_SCHEMA_PATTERNS + 1),
    });
    expectTooLarge(res, 'inputsSchema', 'MAX_SCHEMA_PATTERNS');
  });

  it('a schema longer than MAX_SCHEMA_CHARS is a 400 naming the limit', async () => {
    const res = await post('/api/orgs/org_dev/plugins', {
      name: 'long',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: { type: 'object', description: 'x'.repeat(MAX_SCHEMA_CHARS) },
    });
    expectTooLarge(res, 'inputsSchema', 'MAX_SCHEMA_CHARS');
  });

  it('a schema at the limits is accepted', async () => {
    // 3 values for the object, 2 a plain property, 3 a patterned one.
    const atLimit = objectSchema(
      Math.floor((MAX_SCHEMA_NODES - 3 - MAX_SCHEMA_PATTERNS) / 2),
      MAX_SCHEMA_PATTERNS,
    );
    const res = await post('/api/orgs/org_dev/plugins', {
      name: 'edge',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: atLimit,
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
  });

  it('action and external-event schemas are bounded the same way', async () => {
    const made = await post('/api/orgs/org_dev/plugins', {
      name: 'defs',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id;
    expectTooLarge(
      await post(`/api/plugins/${id}/actions`, {
        name: 'act',
        argsSchema: objectSchema(MAX_SCHEMA_NODES),
      }),
      'argsSchema',
      'MAX_SCHEMA_NODES',
    );
    expectTooLarge(
      await post(`/api/plugins/${id}/actions`, {
        name: 'act',
        returnSchema: objectSchema(MAX_SCHEMA_NODES),
      }),
      'returnSchema',
      'MAX_SCHEMA_NODES',
    );
    expectTooLarge(
      await post(`/api/plugins/${id}/external-events`, {
        name: 'evt',
        payloadSchema: objectSchema(MAX_SCHEMA_NODES),
      }),
      'payloadSchema',
      'MAX_SCHEMA_NODES',
    );
  });

  it('a stored schema past the budget (an import) is never compiled: validating against it is a problem, not a stall', () => {
    const before = compiledSchemaCounts().validators;
    const problems = validateAgainst(objectSchema(2_000), {}, ['inputs']);
    expect(problems).toHaveLength(1);
    expect(problems[0].code).toBe('invalid_schema');
    expect(problems[0].message).toContain('MAX_SCHEMA_NODES');
    expect(compiledSchemaCounts().validators).toBe(before);
  });

  it('`plugsmith deploy` of a manifest whose inputsSchema is past the bound fails with the limit named (exit 5)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plugsmith-bigschema-'));
    try {
      await writeFile(
        join(dir, 'plugsmith.json'),
        JSON.stringify({
          plugin: {
            name: 'big-schema',
            description: 'x',
            type: 'DATA_PROVIDER',
            events: [],
            scopes: [],
            inputsSchema: objectSchema(MAX_SCHEMA_NODES),
          },
        }),
      );
      const run = await runCliInProcess(['deploy', '--base-url', emu.url, '--org', 'org_dev'], {
        cwd: dir,
        env: { PLUGSMITH_TOKEN: emu.token!, PLUGSMITH_CONFIG_DIR: await tempDir('plugsmith-cfg-') },
      });
      expect(run.code, run.stderr).toBe(5);
      expect(run.stderr).toContain('MAX_SCHEMA_NODES');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
