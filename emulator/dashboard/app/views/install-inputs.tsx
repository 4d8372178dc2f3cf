import { useState } from 'react';

/** The part of a JSON Schema the generated form understands. */
interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  title?: string;
  description?: string;
  default?: unknown;
}

type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

/** How a property is edited: a typed control for strings, numbers, booleans and enums, JSON for anything else. */
function kindOf(schema: PropertySchema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (type.length !== 1) return 'json';
  if (
    type[0] === 'string' ||
    type[0] === 'number' ||
    type[0] === 'integer' ||
    type[0] === 'boolean'
  )
    return type[0];
  return 'json';
}

/** The object properties of an inputsSchema the form can show field by field, or null (then the whole value is JSON). */
export function formFields(
  inputsSchema: Record<string, unknown>,
): Array<{ name: string; schema: PropertySchema; kind: FieldKind; required: boolean }> | null {
  const properties = inputsSchema.properties;
  if (inputsSchema.type !== undefined && inputsSchema.type !== 'object') return null;
  if (properties === undefined) {
    // `{}` or `{ type: 'object' }`: nothing declared, so nothing to ask for.
    const constraining = Object.keys(inputsSchema).filter(
      (k) =>
        !['type', '$schema', '$id', 'title', 'description', 'additionalProperties'].includes(k),
    );
    return constraining.length === 0 ? [] : null;
  }
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return null;
  const required = Array.isArray(inputsSchema.required)
    ? inputsSchema.required.filter((r): r is string => typeof r === 'string')
    : [];
  return Object.entries(properties as Record<string, PropertySchema>).map(([name, schema]) => ({
    name,
    schema,
    kind: kindOf(schema ?? {}),
    required: required.includes(name),
  }));
}

/** The text a field starts with: its default, or empty. */
function initialText(schema: PropertySchema, kind: FieldKind): string {
  if (schema.default === undefined) return kind === 'boolean' ? 'false' : '';
  return kind === 'json' ? JSON.stringify(schema.default) : String(schema.default);
}

/**
 * Builds `inputs` from the form's texts: an empty optional field is left out (so the schema's own
 * rules decide), a number that is not one is sent as typed (the API's schema error says why).
 */
function buildInputs(
  fields: NonNullable<ReturnType<typeof formFields>>,
  texts: Record<string, string>,
): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const field of fields) {
    const text = texts[field.name] ?? '';
    if (field.kind === 'boolean') {
      inputs[field.name] = text === 'true';
      continue;
    }
    if (text === '') continue;
    if (field.kind === 'number' || field.kind === 'integer')
      inputs[field.name] = Number.isFinite(Number(text)) ? Number(text) : text;
    else if (field.kind === 'json') {
      try {
        inputs[field.name] = JSON.parse(text);
      } catch {
        inputs[field.name] = text;
      }
    } else inputs[field.name] = text;
  }
  return inputs;
}

/**
 * The inputs form generated from a plugin's `inputsSchema`: one labelled control per property
 * (text, number, checkbox, or a choice for an enum; required ones marked), JSON for properties of
 * other types, and the whole value as JSON when the schema is not a plain object of properties.
 * Reports the inputs (or a JSON problem) on every change.
 */
export function InputsForm({
  inputsSchema,
  onChange,
}: {
  inputsSchema: Record<string, unknown>;
  onChange: (inputs: Record<string, unknown> | Error) => void;
}) {
  const fields = formFields(inputsSchema);
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries((fields ?? []).map((f) => [f.name, initialText(f.schema, f.kind)])),
  );
  const [whole, setWhole] = useState('{}');

  if (fields === null) {
    return (
      <label className="block">
        Inputs (JSON: the plugin's inputsSchema is not a plain object of properties)
        <textarea
          rows={6}
          value={whole}
          spellCheck={false}
          onChange={(e) => {
            setWhole(e.target.value);
            try {
              const value = JSON.parse(e.target.value);
              onChange(
                typeof value === 'object' && value !== null && !Array.isArray(value)
                  ? value
                  : new Error('inputs must be a JSON object'),
              );
            } catch (error) {
              onChange(new Error(`inputs are not valid JSON: ${(error as Error).message}`));
            }
          }}
        />
      </label>
    );
  }
  if (fields.length === 0) return <p className="muted">The plugin declares no inputs.</p>;
  const set = (name: string, value: string) => {
    const next = { ...texts, [name]: value };
    setTexts(next);
    onChange(buildInputs(fields, next));
  };
  return (
    <div className="form-grid">
      {fields.map(({ name, schema, kind, required }) => {
        const label = (
          <span>
            <bdi>{schema.title ?? name}</bdi>
            {required && (
              <span className="required" aria-hidden="true">
                {' '}
                *
              </span>
            )}
            {schema.description && (
              <span className="muted">
                {' '}
                — <bdi>{schema.description}</bdi>
              </span>
            )}
          </span>
        );
        const value = texts[name] ?? '';
        if (kind === 'boolean') {
          return (
            <label
              key={name}
              className="check"
              style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}
            >
              <input
                type="checkbox"
                checked={value === 'true'}
                onChange={(e) => set(name, e.target.checked ? 'true' : 'false')}
                aria-required={required}
              />
              {label}
            </label>
          );
        }
        if (kind === 'enum') {
          return (
            <label key={name}>
              {label}
              <select
                value={value}
                onChange={(e) => set(name, e.target.value)}
                aria-required={required}
              >
                <option value="">{required ? 'choose…' : '(none)'}</option>
                {(schema.enum as string[]).map((option) => (
                  <option key={option}>{option}</option>
                ))}
              </select>
            </label>
          );
        }
        if (kind === 'json') {
          return (
            <label key={name}>
              {label} (JSON)
              <textarea
                rows={3}
                value={value}
                spellCheck={false}
                onChange={(e) => set(name, e.target.value)}
                aria-required={required}
              />
            </label>
          );
        }
        return (
          <label key={name}>
            {label}
            <input
              type={kind === 'string' ? 'text' : 'number'}
              step={kind === 'integer' ? 1 : 'any'}
              value={value}
              onChange={(e) => set(name, e.target.value)}
              aria-required={required}
            />
          </label>
        );
      })}
    </div>
  );
}

/** The inputs the form starts with, before any change (booleans false, defaults as given). */
export function initialInputs(inputsSchema: Record<string, unknown>): Record<string, unknown> {
  const fields = formFields(inputsSchema);
  if (fields === null) return {};
  return buildInputs(
    fields,
    Object.fromEntries(fields.map((f) => [f.name, initialText(f.schema, f.kind)])),
  );
}
