import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { MAX_VALIDATION_WORK } from '../../emulator/validation/work-budget.js';
import {
  answerProperly,
  call,
  verifiedPlugin,
  WebhookServer,
} from '../emulator/webhooks/helpers.js';

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
  emu = await startEmulator();
});
afterAll(async () => {
  await emu?.close();
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
  const repositories = await call(emu.url, 'GET', '/api/orgs/org_dev/repositories', token());
  const repositoryId = repositories.body.data[0].id as string;
  return call(emu.url, 'POST', `/api/repositories/${repositoryId}/data-providers`, token(), {
    name: 'amplified',
    pluginId: plugin.id,
    events: [],
    scopes: [],
    inputs,
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
