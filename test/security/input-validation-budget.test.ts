import { call, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { MAX_VALIDATION_WORK } from '../../emulator/validation/work-budget.js';
import { answerProperly, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';

// Each value and each schema was bounded, the product was not (issue 36). An inputsSchema whose
// `definitions.a` is `allOf` of 150 `{format: "date-time"}`, referenced 6 times per item, against
// 240 values of 4,096 characters: the install answered 500 after 37-57 s and health waited as long.
// `allOf` of 150 `{type: "number"}` x 6 refs against 1,000 one-letter items: a 500 in 2.8 s from
// `problems.push(...)` overflowing the stack at ~180,000 errors. A MEMBER's token is enough. The
// work is now counted before ajv runs and refused at MAX_VALIDATION_WORK with a 400 naming it.
// (How long these take, and health meanwhile, is in `npm run bench -- --only validation`.)

let emu: Emulator;
let hook: WebhookServer;
const token = () => emu.token!;

beforeAll(async () => {
  hook = await WebhookServer.start(answerProperly);
  emu = await emulator();
});
afterAll(async () => {
  await hook?.close();
});

/** `definitions.a` is `allOf` of 150 copies of `check`; each item of `values` must match `a` 6 times. */
function amplified(check: Record<string, unknown>): Record<string, unknown> {
  const six = Array.from({ length: 6 }, () => ({ $ref: '#/definitions/a' }));
  return {
    type: 'object',
    definitions: { a: { allOf: Array.from({ length: 150 }, () => check) } },
    properties: { values: { type: 'array', items: { allOf: six } } },
  };
}

async function installWith(inputsSchema: Record<string, unknown>, inputs: unknown) {
  const plugin = await verifiedPlugin(emu, token(), 'org_dev', {
    type: 'DATA_PROVIDER',
    webhookUrl: hook.url,
    inputsSchema,
  });
  const repositories = await call(emu.url, 'GET', '/api/orgs/org_dev/repositories', {
    bearer: token(),
  });
  const repositoryId = repositories.body.data[0].id as string;
  return call(emu.url, 'POST', `/api/repositories/${repositoryId}/data-providers`, {
    bearer: token(),
    body: {
      name: 'amplified',
      pluginId: plugin.id,
      events: [],
      scopes: [],
      inputs,
    },
  });
}

/** Health answers, as often as it can, while `work` runs; resolves with every status it got. */
async function healthWhile(work: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let done = false;
  void work.finally(() => {
    done = true;
  });
  do {
    const health = await fetch(`${emu.url}/_emulator/health`);
    await health.arrayBuffer();
    statuses.push(health.status);
  } while (!done);
  return statuses;
}

/** `definitions.l1` is `allOf` of 20 copies of `check`; `text` must match `l1` 21 times: the check applies 420 times. */
function nested420(check: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    definitions: { l1: { allOf: Array.from({ length: 20 }, () => check) } },
    properties: {
      text: { allOf: Array.from({ length: 21 }, () => ({ $ref: '#/definitions/l1' })) },
    },
  };
}

/** About 990 KB of base64 (a valid `byte` value), under the 1 MiB body limit with its envelope. */
const BASE64_990K = Buffer.alloc(742_000, 7).toString('base64');

describe('the work of validating inputs against a supplied schema is bounded', () => {
  it('allOf of 150 date-time formats x 6 refs against 240 values of 4,096 characters: a 400 naming the limit', async () => {
    const values = Array.from({ length: 240 }, (_, i) => `${i}`.padEnd(4096, 'x'));
    const install = installWith(amplified({ format: 'date-time' }), { values });
    const [statuses, res] = await Promise.all([healthWhile(install), install]);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      code: 'validation_too_costly',
      path: ['inputs'],
    });
    expect(res.body.error.details[0].message).toContain('MAX_VALIDATION_WORK');
    expect(res.body.error.message).toContain('MAX_VALIDATION_WORK');
    expect(statuses.every((status) => status === 200)).toBe(true);
  });

  it('allOf of 150 number types x 6 refs against 1,000 one-letter items: a 400, not a stack overflow', async () => {
    const values = Array.from({ length: 1_000 }, () => 'a');
    const res = await installWith(amplified({ type: 'number' }), { values });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400);
    expect(res.body.error.details[0].code).toBe('validation_too_costly');
  });

  it('refs to a definition that holds a ref (called, not inlined, by ajv) count more: 12 per item x 1,000 items is a 400', async () => {
    // Each call copied every error so far (250-380 ms for 12,000 calls of a one-check definition).
    const schema = {
      type: 'object',
      definitions: { b: { type: 'number' }, a: { allOf: [{ $ref: '#/definitions/b' }] } },
      properties: {
        values: {
          type: 'array',
          items: { allOf: Array.from({ length: 12 }, () => ({ $ref: '#/definitions/a' })) },
        },
      },
    };
    const values = Array.from({ length: 1_000 }, () => 'a');
    const res = await installWith(schema, { values });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400);
    expect(res.body.error.details[0].code).toBe('validation_too_costly');
  });

  it('many errors within the budget are listed in part, counted, and answered as a 400', async () => {
    // 150 checks x 1 ref x 300 items: 45,000 errors, within the budget.
    const schema = {
      type: 'object',
      properties: {
        values: {
          type: 'array',
          items: { allOf: Array.from({ length: 150 }, () => ({ type: 'number' })) },
        },
      },
    };
    const values = Array.from({ length: 300 }, () => 'a');
    const res = await installWith(schema, { values });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400);
    const details = res.body.error.details as Array<{ code: string; message: string }>;
    expect(details.length).toBeLessThanOrEqual(21);
    expect(details.at(-1)!.code).toBe('more_details');
    expect(res.body.error.message.length).toBeLessThan(5_000);
  });

  it('an ordinary schema and input still install', async () => {
    const schema = {
      type: 'object',
      required: ['region'],
      properties: {
        region: { type: 'string', enum: ['eu', 'us'] },
        since: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string', maxLength: 40 }, uniqueItems: true },
      },
    };
    const inputs = {
      region: 'eu',
      since: '2026-01-01T00:00:00Z',
      tags: Array.from({ length: 200 }, (_, i) => `tag-${i}`),
    };
    const res = await installWith(schema, inputs);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(MAX_VALIDATION_WORK).toBeGreaterThanOrEqual(50_000);
  });
});

// Round five (issue 41, item 8): the count left out the work a string check does on a long string.
// `minLength` applied 420 times through nested `$ref`s to a 990 KB string was accepted at ~1,300
// of 50,000 units and took 3.6 s (health p99 3.5 s); `format: byte` x420 took 1.3 s. Every
// application of `minLength`, `maxLength` and `pattern` now counts the characters it reads, and
// `byte` its whole string.
describe('string checks count the characters they read', () => {
  const expectTooCostly = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      code: 'validation_too_costly',
      path: ['inputs'],
    });
  };

  it('minLength x420 through nested $ref against a 990 KB string: a 400 validation_too_costly, health answering meanwhile', async () => {
    const install = installWith(nested420({ minLength: 1 }), { text: 'a'.repeat(990_000) });
    const [statuses, res] = await Promise.all([healthWhile(install), install]);
    expectTooCostly(res);
    expect(res.body.error.details[0].message).toContain('length check');
    expect(statuses.every((status) => status === 200)).toBe(true);
  });

  it('maxLength x420 against a 990 KB string: a 400 validation_too_costly', async () => {
    expectTooCostly(
      await installWith(nested420({ maxLength: 2_000_000 }), { text: 'a'.repeat(990_000) }),
    );
  });

  it('format byte x420 against 990 KB of base64: a 400 validation_too_costly', async () => {
    expectTooCostly(await installWith(nested420({ format: 'byte' }), { text: BASE64_990K }));
  });

  it('pattern x420 against a 990 KB string: a 400 validation_too_costly before any match runs', async () => {
    expectTooCostly(await installWith(nested420({ pattern: 'a' }), { text: 'a'.repeat(990_000) }));
  });

  it('propertyNames read every key: minLength x420 (through refs) against a key of 990 KB is a 400', async () => {
    const schema = {
      type: 'object',
      definitions: {
        l1: { allOf: Array.from({ length: 20 }, () => ({ propertyNames: { minLength: 1 } })) },
      },
      properties: {
        names: { allOf: Array.from({ length: 21 }, () => ({ $ref: '#/definitions/l1' })) },
      },
    };
    expectTooCostly(await installWith(schema, { names: { ['k'.repeat(990_000)]: 1 } }));
  });

  it('a 1 MB body under an ordinary schema (length limits, a pattern, byte) still installs', async () => {
    const schema = {
      type: 'object',
      required: ['document', 'attachment'],
      properties: {
        document: { type: 'string', minLength: 1, maxLength: 1_048_576 },
        attachment: { type: 'string', format: 'byte', minLength: 4, maxLength: 1_048_576 },
        title: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\n]+$' },
      },
    };
    const half = BASE64_990K.slice(0, 480_000);
    const res = await installWith(schema, {
      document: 'd'.repeat(480_000),
      attachment: half,
      title: 'quarterly report',
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    const single = await installWith(
      {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1, maxLength: 1_048_576 } },
      },
      { text: 'a'.repeat(990_000) },
    );
    expect(single.status, JSON.stringify(single.body).slice(0, 500)).toBe(201);
    const encoded = await installWith(
      {
        type: 'object',
        properties: { text: { type: 'string', format: 'byte', maxLength: 1_048_576 } },
      },
      { text: BASE64_990K },
    );
    expect(encoded.status, JSON.stringify(encoded.body).slice(0, 500)).toBe(201);
  });
});
