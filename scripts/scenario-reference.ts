import type { TSchema } from '@sinclair/typebox';
import {
  EXPECTATION_KINDS,
  EXPECTATION_KIND_NAMES,
  STEP_KINDS,
  STEP_KIND_NAMES,
  scenarioJsonSchema,
} from '../src/scenario/schema.js';

/**
 * scenario.schema.json and the format reference of docs/scenarios.md (between its `format:start`
 * and `format:end` markers), both from the TypeBox schema of src/scenario/schema.ts. `npm run docs`
 * writes them; test/scenario/schema-file.test.ts fails while either is stale.
 */

/** The text of scenario.schema.json. */
export function scenarioSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}

/** A field's type in words. */
function typeOf(schema: TSchema): string {
  const s = schema as {
    type?: string;
    const?: unknown;
    anyOf?: TSchema[];
    items?: TSchema;
  };
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) {
    const parts = s.anyOf.map(typeOf);
    return parts.length > 8 ? 'an event kind' : parts.join(' \\| ');
  }
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'values'}`;
  return s.type ?? 'any';
}

function fieldsTable(schema: TSchema): string {
  const s = schema as { properties?: Record<string, TSchema>; required?: string[] };
  const rows = Object.entries(s.properties ?? {}).map(([name, field]) => {
    const required = s.required?.includes(name) ? 'yes' : '';
    const description = (field as { description?: string }).description ?? '';
    return `| \`${name}\` | ${typeOf(field)} | ${required} | ${description} |`;
  });
  if (rows.length === 0) return 'No fields: `{}`.\n';
  return ['| field | type | required | meaning |', '|---|---|---|---|', ...rows, ''].join('\n');
}

/** The reference: each step kind and expectation kind with its fields. */
export function scenarioFormatReference(): string {
  const lines: string[] = ['### Steps', ''];
  for (const kind of STEP_KIND_NAMES) {
    const { schema, results } = STEP_KINDS[kind];
    lines.push(
      `#### \`${kind}\``,
      '',
      String((schema as { description?: string }).description),
      '',
    );
    lines.push(fieldsTable(schema));
    lines.push(
      results.length
        ? `Result fields (for \`\${id.field}\`): ${results.map((r) => `\`${r}\``).join(', ')}.`
        : 'No result fields.',
      '',
    );
  }
  lines.push('### Expectations', '');
  for (const kind of EXPECTATION_KIND_NAMES) {
    const schema = EXPECTATION_KINDS[kind];
    lines.push(
      `#### \`${kind}\``,
      '',
      String((schema as { description?: string }).description),
      '',
    );
    lines.push(fieldsTable(schema));
  }
  return lines.join('\n');
}

/** docs/scenarios.md with its generated part replaced. */
export function withFormatReference(page: string): string {
  const start = '<!-- format:start -->';
  const end = '<!-- format:end -->';
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from === -1 || to === -1) return page;
  return `${page.slice(0, from + start.length)}\n${scenarioFormatReference()}\n${page.slice(to)}`;
}
