// An example value built from a JSON Schema, to start the Trigger view's payload editor for an
// external event from its `payloadSchema`. Pure (no DOM): the schema's own `examples`, `default`,
// `const` or first `enum` value when it has one, else a value of its type that meets its bounds.

import { checkSchema } from './json-schema-check.js';

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An example of `schema`; `{}` for an absent or empty schema. Deep schemas stop at `depth` 8 with `null`. */
export function exampleOf(schema: unknown, depth = 0): unknown {
  if (!isSchema(schema)) return {};
  if (depth > 8) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return exampleOf(options[0], depth + 1);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((sub) => exampleOf(sub, depth + 1));
    return parts.every(isSchema) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') ?? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/';
      return 'example'.padEnd(typeof schema.minLength === 'number' ? schema.minLength : 0, 'x').slice(0, typeof schema.maxLength === 'number' ? schema.maxLength : undefined);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : typeof schema.maximum === 'number' ? Math.min(0, schema.maximum) : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : isSchema(schema.items) ? 1 : 0;
      return Array.from({ length: count }, () => exampleOf(schema.items, depth + 1));
    }
    default: {
      if (type !== 'object' && !isSchema(schema.properties)) return {};
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const out: Record<string, unknown> = {};
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      for (const [name, sub] of Object.entries(properties)) {
        const example = exampleOf(sub, depth + 1);
        // An optional property only when its example fits (an object with a minimum of properties it does not name would not).
        if (required.has(name) || checkSchema(sub, example).length === 0) out[name] = example;
      }
      return out;
    }
  }
}
