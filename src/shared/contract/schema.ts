import {
  Type,
  type Static,
  type TObject,
  type TSchema,
  type TUnsafe,
  type SchemaOptions,
} from '@sinclair/typebox';

// Enums as `{ type: 'string', enum }` and nullables as `type: [T, 'null']` (not anyOf): simpler ajv details and OpenAPI.

/** A string enum: `{ type: 'string', enum }`, typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** `schema` or null, as `type: [type, 'null']` when `schema` has one type (anyOf otherwise). */
export function Nullable<S extends TSchema>(
  schema: S,
  options: SchemaOptions = {},
): TUnsafe<Static<S> | null> {
  const { type, ...rest } = schema as TSchema & { type?: unknown; enum?: unknown[] };
  // An enum lists its values: null must be one of them too, or `type` admits null and `enum` refuses it.
  if (typeof type === 'string')
    return Type.Unsafe<Static<S> | null>({
      ...rest,
      ...(rest.enum ? { enum: [...rest.enum, null] } : {}),
      ...options,
      type: [type, 'null'],
    });
  return Type.Unsafe<Static<S> | null>({ ...options, anyOf: [schema, { type: 'null' }] });
}

/** Any JSON value (a stored-as-given field such as `eventDispatchCondition`). */
export const AnyJson = Type.Unsafe<unknown>({});

/** A JSON object whose keys are not fixed (a JSON Schema, plugin inputs, an event body). */
export const JsonObject = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
});

/** Ids in paths and bodies: non-empty strings of reasonable length. */
export const Id = Type.String({ minLength: 1, maxLength: 200 });

/** Ids chosen by the caller: URL-safe, so they work in paths as they are. */
export const ChosenId = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9_.:-]+$',
});

/** ISO 8601 timestamp as the emulator writes it. */
export const Timestamp = Type.String({ format: 'date-time' });

/** `createdAt` and `updatedAt`, on every stored resource. */
export const Timestamps = { createdAt: Timestamp, updatedAt: Timestamp };

/** Longest path parameter the emulator's router takes (fastify's maxParamLength): a longer one is a 400 "A path parameter is too long". */
export const MAX_PATH_PARAM_LENGTH = 100;

/** An id in a path: as `Id`, but the router refuses one over MAX_PATH_PARAM_LENGTH before any schema runs. */
export const PathId = Type.String({ minLength: 1, maxLength: MAX_PATH_PARAM_LENGTH });

const paramsByNames = oncePerKey((key: string) =>
  Type.Object(Object.fromEntries(key.split(' ').map((name) => [name, PathId]))),
);

/** Path parameters made of ids, e.g. `Params('pluginId', 'actionId')` (the same schema object for the same names). */
export function Params<const K extends string>(...names: K[]) {
  return paramsByNames(names.join(' ')) as TObject<{ [P in K]: typeof PathId }>;
}

/** `build` run once per key: the compilers cache per schema object, so later apps of the process reuse their work. */
export function oncePerKey<K, V>(build: (key: K) => V): (key: K) => V {
  const built = new Map<K, V>();
  return (key) => {
    let value = built.get(key);
    if (value === undefined) {
      value = build(key);
      built.set(key, value);
    }
    return value;
  };
}
