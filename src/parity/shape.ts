// The field tree of a JSON answer: paths and JSON types, never a value. `data.tags[]` is the type
// of the array's items (the union over every item), `data.webhookUrl: "null"` a field present as null.
// A field absent from the answer is absent from the tree.

/** A path of a JSON document and its JSON type(s): `string`, `number`, `boolean`, `null`, `object`, `array`, or a union such as `null|string`. */
export type Shape = Record<string, string>;

/** The JSON type of a value. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'object';
}

/** The field tree of a JSON value: every path with the types found there. */
export function shapeOf(value: unknown, pick?: (path: string, item: unknown) => boolean): Shape {
  const types = new Map<string, Set<string>>();
  walk(value, '', types, pick);
  const shape: Shape = {};
  for (const path of [...types.keys()].sort()) shape[path] = [...types.get(path)!].sort().join('|');
  return shape;
}

function walk(
  value: unknown,
  path: string,
  types: Map<string, Set<string>>,
  pick: ((path: string, item: unknown) => boolean) | undefined,
): void {
  if (path !== '') add(types, path, jsonType(value));
  if (Array.isArray(value)) {
    const itemPath = `${path}[]`;
    for (const item of value) {
      if (pick && !pick(itemPath, item)) continue;
      walk(item, itemPath, types, pick);
    }
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      walk(child, path === '' ? key : `${path}.${key}`, types, pick);
    }
  }
}

function add(types: Map<string, Set<string>>, path: string, type: string): void {
  const seen = types.get(path) ?? new Set<string>();
  seen.add(type);
  types.set(path, seen);
}

/** The value at a shape path (`meta.pagination.type`), when it names one value: not below an array. */
export function valueAt(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Which envelope an answer used: the success one, the error one, another JSON body, none (empty or not JSON), or an event stream. */
export type Envelope = 'ok' | 'error' | 'other' | 'none' | 'event-stream';

/** The envelope of a parsed body (`undefined`: empty or not JSON). */
export function envelopeOf(body: unknown): Envelope {
  if (body === undefined) return 'none';
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'other';
  const record = body as Record<string, unknown>;
  if (record.ok === true && 'data' in record) return 'ok';
  if (record.ok === false && record.error !== null && typeof record.error === 'object')
    return 'error';
  return 'other';
}
