import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, EVENT_KINDS } from '#contract';
import { checkSchema } from '../../emulator/dashboard/app/json-schema-check.js';
import { exampleOf } from '../../emulator/dashboard/app/schema-example.js';
import { validateAgainst } from '../../emulator/validation/json-schema.js';
import { sampleData } from '../../src/trigger/fixtures.js';

// The browser's checker must agree with the emulator's (ajv) on the event schemas: the same
// payloads pass, and a failing one is reported at the same paths.

const known = {
  pluginId: 'plg_1',
  orgId: 'org_1',
  events: ['AGENT_MESSAGE_RECEIVED'],
  scopes: [],
  pluginInstanceId: 'pi_1',
  entityId: 'agent_1',
  entityType: 'AGENT',
  instanceName: 'x',
  agentId: 'agent_1',
  repositoryId: 'repo_1',
  fileSize: 12,
};

function paths(problems: Array<{ path: string[] }>): string[] {
  return [...new Set(problems.map((p) => p.path.join('.')))].sort();
}

describe('checkSchema on the event schemas', () => {
  it.each(EVENT_KINDS)('passes the fixture sample of %s, as the emulator does', (type) => {
    const data = sampleData(type, known);
    expect(validateAgainst(EVENT_DATA_SCHEMAS[type], data, ['data'])).toEqual([]);
    expect(checkSchema(EVENT_DATA_SCHEMAS[type], data, ['data'])).toEqual([]);
  });

  const broken: Array<[string, (typeof EVENT_KINDS)[number], (d: any) => void]> = [
    ['a number for text', 'AGENT_MESSAGE_RECEIVED', (d) => (d.message.content = 42)],
    ['a missing field', 'AGENT_MESSAGE_RECEIVED', (d) => delete d.agentId],
    ['an unknown enum value', 'AGENT_MESSAGE_RECEIVED', (d) => (d.message.sender = 'ROBOT')],
    ['a bad date', 'REPOSITORY_FILE_ADDED', (d) => (d.file.createdAt = 'yesterday')],
    ['a string for a nullable integer', 'REPOSITORY_FILE_ADDED', (d) => (d.file.fileSize = '12')],
    ['an empty id', 'REPOSITORY_FILE_REMOVED', (d) => (d.repositoryId = '')],
    ['a missing instance', 'PLUGIN_INSTALLED', (d) => delete d.instance],
    ['a wrong array item', 'PLUGIN_INSTALLED', (d) => (d.instance.events = [1])],
    ['a challenge that is no string', 'WEBHOOK_CHALLENGE', (d) => (d.challenge = null)],
  ];
  it.each(broken)('refuses %s at the same paths as the emulator', (_name, type, breakIt) => {
    const data = structuredClone(sampleData(type, known)) as any;
    breakIt(data);
    const server = validateAgainst(EVENT_DATA_SCHEMAS[type], data, ['data']);
    const browser = checkSchema(EVENT_DATA_SCHEMAS[type], data, ['data']);
    expect(browser.length).toBeGreaterThan(0);
    expect(paths(browser)).toEqual(paths(server));
  });
});

// An external event's payloadSchema is the plugin author's own JSON Schema: the Trigger view checks a
// payload against it with checkSchema and starts the editor from exampleOf. Both are held to ajv.
describe('checkSchema and exampleOf on a payloadSchema', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const schema = {
    type: 'object',
    required: ['orderId', 'amount', 'tags', 'placedAt'],
    properties: {
      orderId: { type: 'string', pattern: '^ord_[a-z0-9]+$', examples: ['ord_42'] },
      amount: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01, default: 9.99 },
      tags: { type: 'array', items: { type: 'string', minLength: 2 }, uniqueItems: true },
      placedAt: { type: 'string', format: 'date-time' },
      meta: { type: 'object', minProperties: 1, maxProperties: 2, not: { required: ['secret'] } },
      channel: { enum: ['web', 'shop'] },
    },
    additionalProperties: false,
  };
  const validate = ajv.compile(schema);
  const ajvPaths = (value: unknown) => {
    validate(value);
    return [
      ...new Set(
        (validate.errors ?? []).map((e) =>
          [
            ...e.instancePath.split('/').slice(1),
            ...(e.keyword === 'required' || e.keyword === 'additionalProperties'
              ? [String(Object.values(e.params)[0])]
              : []),
          ].join('.'),
        ),
      ),
    ].sort();
  };

  it('builds an example that fits its schema', () => {
    const example = exampleOf(schema) as Record<string, unknown>;
    expect(example).toMatchObject({ orderId: 'ord_42', amount: 9.99, channel: 'web' });
    expect(checkSchema(schema, example)).toEqual([]);
    expect(exampleOf(undefined)).toEqual({});
  });

  const broken: Array<[string, Record<string, unknown>]> = [
    ['a missing required field', { amount: 1, tags: [], placedAt: '2026-01-01T00:00:00Z' }],
    [
      'a pattern mismatch',
      { orderId: 'order 1', amount: 1, tags: [], placedAt: '2026-01-01T00:00:00Z' },
    ],
    [
      'an exclusive bound and a multiple',
      { orderId: 'ord_1', amount: 0, tags: [], placedAt: '2026-01-01T00:00:00Z', channel: 'fax' },
    ],
    [
      'a duplicate item and a short one',
      { orderId: 'ord_1', amount: 1.5, tags: ['a', 'bb', 'bb'], placedAt: '2026-01-01T00:00:00Z' },
    ],
    [
      'property counts and not',
      {
        orderId: 'ord_1',
        amount: 1.25,
        tags: [],
        placedAt: '2026-01-01T00:00:00Z',
        meta: { secret: 1, a: 2, b: 3 },
      },
    ],
    [
      'an unknown property',
      { orderId: 'ord_1', amount: 1.005, tags: [], placedAt: '2026-01-01T00:00:00Z', extra: true },
    ],
  ];
  it.each(broken)('refuses %s at the same paths as ajv', (_name, value) => {
    const expected = ajvPaths(value);
    expect(expected.length).toBeGreaterThan(0);
    expect(paths(checkSchema(schema, value))).toEqual(expected);
  });
});

describe("checkSchema and exampleOf on someone else's schema", () => {
  it('report what they cannot check as problems, never a throw', () => {
    // Lookahead is not RE2: the emulator refuses the schema when it is saved; the page says why it cannot check it.
    const lookahead = checkSchema({ type: 'string', pattern: '^(?=a)' }, 'a', ['payload']);
    expect(lookahead).toEqual([
      expect.objectContaining({
        path: ['payload'],
        code: 'schema',
        message: expect.stringContaining('cannot be checked against the pattern ^(?=a)'),
      }),
    ]);
    const key = checkSchema(
      { type: 'object', patternProperties: { '(?<=k)x': { type: 'number' } } },
      { kx: 'x' },
      ['payload'],
    );
    expect(key.map((p) => p.code)).toEqual(['schema']);
    // A malformed keyword (the emulator's meta-validation refuses it) is a problem too.
    expect(checkSchema({ type: 'object', required: 5 }, {}, ['payload'])[0]).toMatchObject({
      code: 'schema',
      path: ['payload'],
    });
    // A long value against a large pattern goes past the match budget: a problem, as the emulator's 400.
    const budget = checkSchema(
      { type: 'string', pattern: '^(a|b|c|d)'.concat('[ab]?'.repeat(150), '$') },
      'a'.repeat(50_000),
      ['payload'],
    );
    expect(budget[0]).toMatchObject({
      code: 'pattern',
      message: expect.stringContaining('would take too long'),
    });
  });

  it('keep an example small whatever bounds the schema asks for', () => {
    const example = exampleOf({
      type: 'object',
      required: ['list', 'text'],
      properties: {
        list: {
          type: 'array',
          minItems: 1_000,
          items: { type: 'array', minItems: 1_000, items: { type: 'string' } },
        },
        text: { type: 'string', minLength: 1e9 },
      },
    }) as { list: string[][]; text: string };
    expect(example.list.length).toBeLessThanOrEqual(20);
    expect(example.list[0].length).toBeLessThanOrEqual(20);
    expect(example.text.length).toBeLessThanOrEqual(1_000);
  });
});
