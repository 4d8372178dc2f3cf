import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { oncePerKey, StringEnum } from './schema.js';
import { ERROR_TYPES, SORT_ORDERS } from './enum-values.js';

/** One entry of `error.details`, in the spec's shape. */
export const ErrorDetailSchema = Type.Object(
  {
    code: Type.String(),
    expected: Type.String(),
    received: Type.String(),
    path: Type.Array(Type.String()),
    message: Type.String(),
  },
  { $id: 'ErrorDetail' },
);
export type ErrorDetail = Static<typeof ErrorDetailSchema>;

/** Most `error.details` listed (then one `more_details` entry): thousands of problems must not be answered with megabytes. */
export const MAX_ERROR_DETAILS = 20;

/** `{ ok: false, error: { message, error, details? } }`. */
export const ErrorEnvelopeSchema = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.Object({
      message: Type.String(),
      error: StringEnum(ERROR_TYPES),
      details: Type.Optional(
        Type.Array(Type.Ref(ErrorDetailSchema), {
          maxItems: MAX_ERROR_DETAILS + 1,
          description: `At most ${MAX_ERROR_DETAILS} problems; when there were more, a last entry with code "more_details" and an empty path says how many were left out.`,
        }),
      ),
    }),
  },
  { $id: 'ErrorEnvelope', additionalProperties: false },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

/** Index pagination, as in the spec's shared query system. */
export const IndexPaginationSchema = Type.Object({
  type: Type.Literal('index'),
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
  totalPages: Type.Integer({ minimum: 0 }),
  hasNext: Type.Boolean(),
  hasPrev: Type.Boolean(),
});
export type IndexPagination = Static<typeof IndexPaginationSchema>;

/** Cursor pagination: `nextCursor` is the id to pass as `@cursor` for the next page. */
export const CursorPaginationSchema = Type.Object({
  type: Type.Literal('cursor'),
  limit: Type.Integer({ minimum: 1 }),
  hasNext: Type.Boolean(),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export type CursorPagination = Static<typeof CursorPaginationSchema>;

export const PaginationSchema = Type.Union([IndexPaginationSchema, CursorPaginationSchema], {
  $id: 'Pagination',
});
export type Pagination = Static<typeof PaginationSchema>;

/** `{ ok: true, data }` around `data` (one schema object per `data` schema). */
export const Ok = oncePerKey(<T extends TSchema>(data: T) =>
  Type.Object({ ok: Type.Literal(true), data }, { additionalProperties: false }),
);

/** `{ ok: true, data: [...], meta: { pagination } }` around a list of `item` (one schema object per `item` schema). */
export const OkPage = oncePerKey(<T extends TSchema>(item: T) =>
  Type.Object(
    {
      ok: Type.Literal(true),
      data: Type.Array(item),
      meta: Type.Object({ pagination: Type.Ref(PaginationSchema) }),
    },
    { additionalProperties: false },
  ),
);

/** A server-sent-events response: frames written as they happen, never serialized from a schema; `description` names the events, `data` is the schema of each event's data (the OpenAPI document gives it as `x-event-data`). */
export function EventStream(description: string, data: TSchema) {
  return {
    description,
    content: { 'text/event-stream': { schema: data } },
  };
}

/** One query parameter: a value, or the values of a repeated parameter. */
function QueryValue(description: string, examples?: string[]) {
  return Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description,
      ...(examples ? { examples } : {}),
    }),
  );
}

/** Most records per page. */
export const MAX_PAGE_LIMIT = 100;

/** The fixed parameters of the query system; property filters (`?name=x`) are the route's own (additional properties). */
export const ListQuerySchema = Type.Object(
  {
    '@page': QueryValue('Page number, from 1 (index pagination)', ['2']),
    '@limit': QueryValue(`Records per page, 1 to ${MAX_PAGE_LIMIT}`, ['20']),
    '@cursor': QueryValue(
      'Return the records after the record with this id (cursor pagination); empty: from the start',
    ),
    '@sortBy': QueryValue('Comma-separated fields to sort by'),
    '@sortOrder': QueryValue('Comma-separated asc|desc, one per @sortBy field'),
    '@search': QueryValue("Case-insensitive text search in the endpoint's text fields"),
  },
  {
    additionalProperties: true,
    description: 'Query system parameters; any other parameter filters by the field of that name',
  },
);

/** How a list endpoint's field may be filtered and sorted (`array` fields match any of their values). */
export type QueryFieldType = 'string' | 'number' | 'boolean' | 'array';

/** Marks a query schema the handler checks itself (fastify does not): it documents, typed, what the handler takes from the raw strings. */
export const CHECKED_BY_HANDLER = 'x-checked-by-handler';

/** A raw query as the handler reads it. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** A query schema marked CHECKED_BY_HANDLER: documented with these properties, read and checked by the handler. */
export function HandlerQuery(
  properties: Record<string, unknown>,
  options: { description?: string } = {},
) {
  return Type.Unsafe<RawQuery>({
    type: 'object',
    [CHECKED_BY_HANDLER]: true,
    additionalProperties: false,
    ...options,
    properties,
  });
}

/** A comma list of `item` (`?a=x,y`; a repeated parameter is taken too). */
function commaList(item: Record<string, unknown>, description: string) {
  return { type: 'array', items: item, minItems: 1, description, style: 'form', explode: false };
}
/**
 * A filter: one value, or a comma list of them (`?type=APP`, `?type=APP,DATA_PROVIDER`; a repeated parameter is taken too).
 * Both are the same on the wire; declaring both lets generated clients take `type: 'APP'` as well as `type: ['APP']`.
 */
function oneOrCommaList(item: Record<string, unknown>, description: string) {
  return {
    anyOf: [item, { type: 'array', items: item, minItems: 1 }],
    description,
    style: 'form',
    explode: false,
  };
}
/** A value of a comma list: not empty, no comma. */
const LIST_ITEM = { type: 'string', pattern: '^[^,]*[^,\\s][^,]*$' };

function buildListQuery(spec: {
  fields: Record<string, QueryFieldType>;
  search: readonly string[];
  /** The values of the string fields that are enums: their filters take only these. */
  enums?: Readonly<Record<string, readonly string[]>>;
}) {
  const fields = Object.keys(spec.fields);
  const filters = Object.fromEntries(
    Object.entries(spec.fields).map(([field, type]) => {
      const values = spec.enums?.[field];
      const item =
        type === 'number'
          ? { type: 'number' }
          : type === 'boolean'
            ? { type: 'boolean' }
            : values
              ? { type: 'string', enum: [...values] }
              : LIST_ITEM;
      const meaning =
        type === 'array'
          ? `records whose ${field} contains any of these values`
          : `records whose ${field} is any of these values`;
      return [field, oneOrCommaList(item, `Filter: ${meaning} (one value, or comma-separated)`)];
    }),
  );
  return HandlerQuery(
    {
      '@page': {
        type: 'integer',
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        default: 1,
        description:
          'Page number, from 1 (index pagination; not with @cursor); given once, decimal digits only',
        examples: [2],
      },
      '@limit': {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_LIMIT,
        default: 20,
        description: `Records per page, 1 to ${MAX_PAGE_LIMIT}; given once, decimal digits only`,
        examples: [20],
      },
      '@cursor': {
        type: 'string',
        description:
          'Return the records after the record with this id (cursor pagination; not with @page); empty: from the start. Given once.',
      },
      '@sortBy': commaList(
        { type: 'string', enum: fields },
        'Fields to sort by, comma-separated (default createdAt)',
      ),
      '@sortOrder': commaList(
        { type: 'string', enum: [...SORT_ORDERS] },
        'asc or desc per @sortBy field, comma-separated; no more than @sortBy fields; the last applies to the rest (default desc)',
      ),
      '@search': {
        type: 'string',
        description: `Case-insensitive text search in ${spec.search.join(', ') || 'no field'}; given once`,
      },
      ...filters,
    },
    { description: 'The query system: paging, sorting, search, and a filter per field' },
  );
}

/** The query of one list endpoint, as the query system's parser accepts it, with a filter per field (one schema object per spec). */
export const ListQuery = oncePerKey(buildListQuery);

/** Names of the fixed parameters of the query system. */
export const LIST_QUERY_PARAMETERS = Object.keys(ListQuerySchema.properties) as ReadonlyArray<
  keyof typeof ListQuerySchema.properties
>;

/** The schemas that responses refer to by `$ref`: added once to each fastify app (and to the OpenAPI components). */
export const SHARED_SCHEMAS: readonly TSchema[] = [
  ErrorDetailSchema,
  ErrorEnvelopeSchema,
  PaginationSchema,
];

const ErrorEnvelopeRef = Type.Ref(ErrorEnvelopeSchema);

/** Error responses of a route, per status: every one is the error envelope. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorEnvelopeRef> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorEnvelopeRef]));
}
