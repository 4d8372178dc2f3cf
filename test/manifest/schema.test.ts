import { Ajv } from 'ajv';
import { expect, test } from 'vitest';
import manifestSchema from '../../plugsmith.schema.json' with { type: 'json' };
import scenarioSchema from '../../scenario.schema.json' with { type: 'json' };

// The JSON schemas the package ships (editors read them through `$schema`) are checked against the
// JSON Schema meta-schema here, once, so that the CLI need not: the manifest's validator compiles
// plugsmith.schema.json with `validateSchema: false` (src/manifest/load.ts).

/** The meta-schema's complaints about `schema`, as "path: message" lines (none for a valid schema). */
function metaSchemaProblems(schema: object): string[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  if (ajv.validateSchema(schema)) return [];
  return (ajv.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message}`);
}

test.each([
  ['plugsmith.schema.json', manifestSchema],
  ['scenario.schema.json', scenarioSchema],
])('%s is a valid draft-07 JSON Schema', (_name, schema) => {
  expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  expect(metaSchemaProblems(schema)).toEqual([]);
});

test('the check finds a mistake the CLI would no longer catch at run time', () => {
  const broken = structuredClone(manifestSchema) as { properties: Record<string, unknown> };
  broken.properties.plugin = { type: 'objcet' };
  expect(metaSchemaProblems(broken).join('\n')).toContain('/properties/plugin/type');
});
