// An example value built from a JSON Schema, to start the Trigger view's payload editor for an
// external event from its `payloadSchema`. Pure (no DOM): the schema's own `examples`, `default`,
// `const` or first `enum` value when it has one, else a value of its type that meets its bounds.
// The schema may be any MEMBER's, so building the example is bounded (MAX_VALUES values, strings of
// at most MAX_STRING characters, MAX_ITEMS items per array) and never throws: past a bound the
// example simply falls short of the schema, and checking it says so.

import { withMatchBudget } from '../../validation/linear-regex.js';
import { problemsWithinBudget } from './json-schema-check.js';

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values one example may be made of; past it the rest are `null`. */
const MAX_VALUES = 2_000;
/** Longest string an example pads to (a `minLength` above it is left to the person to meet). */
const MAX_STRING = 1_000;
/** Most items an example array gets (a `minItems` above it likewise). */
const MAX_ITEMS = 20;

/** An example of `schema`; `{}` for an absent or empty schema. Deep schemas stop at `depth` 8 with `null`. */
export function exampleOf(schema: unknown): unknown {
  try {
    // One match budget for the whole example, however many optional properties it checks.
    return withMatchBudget(() => build(schema, 0, { left: MAX_VALUES }));
  } catch {
    // A schema of a shape no example fits: the person starts from an empty object.
    return {};
  }
}

function build(schema: unknown, depth: number, budget: { left: number }): unknown {
  if (!isSchema(schema)) return {};
  if (depth > 8 || --budget.left < 0) return null;
  const part = (sub: unknown) => build(sub, depth + 1, budget);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return part(options[0]);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map(part);
    return parts.every(isSchema) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== 'null') ?? schema.type[0])
    : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/';
      return 'example'
        .padEnd(
          typeof schema.minLength === 'number' ? Math.min(schema.minLength, MAX_STRING) : 0,
          'x',
        )
        .slice(0, typeof schema.maxLength === 'number' ? schema.maxLength : undefined);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.maximum === 'number'
          ? Math.min(0, schema.maximum)
          : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count =
        typeof schema.minItems === 'number'
          ? Math.max(0, Math.min(schema.minItems, MAX_ITEMS))
          : isSchema(schema.items)
            ? 1
            : 0;
      return Array.from({ length: count }, () => part(schema.items));
    }
    default: {
      if (type !== 'object' && !isSchema(schema.properties)) return {};
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const out: Record<string, unknown> = {};
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      for (const [name, sub] of Object.entries(properties)) {
        const example = part(sub);
        // An optional property only when its example fits (an object with a minimum of properties it does not name would not).
        if (required.has(name) || problemsWithinBudget(sub, example).length === 0)
          out[name] = example;
      }
      return out;
    }
  }
}
