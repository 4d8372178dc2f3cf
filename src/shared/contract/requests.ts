import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AnyJson, ChosenId, Id, JsonObject, Nullable } from './schema.js';
import { HandlerQuery, ListQuerySchema, type RawQuery } from './envelope.js';
import {
  AttachmentTypeSchema,
  DeliveryStatusSchema,
  DispatchModeSchema,
  EventKindSchema,
  FileStatusSchema,
  MessageTypeSchema,
  ParentTypeSchema,
  PluginTypeSchema,
  ScopeSchema,
} from './enums.js';
import { HTTP_STATUS_FILTER_PATTERN } from './enum-values.js';

// Every request body of the management, messaging and admin APIs, with the emulator's limits; `examples` feed the OpenAPI document.

/** Marks a field the spec does not have, which the emulator adds (the OpenAPI document carries it as it is). */
export const EXTENSION = 'x-plugsmith-extension';

/** Most files in one upload-URL request, and the largest object an upload may be. */
export const MAX_FILES_PER_REQUEST = 10;
/** The spec's "100 MB" read as SI, 10^8 bytes: stricter than 100 MiB, so a file the emulator takes fits a platform that means either. */
export const MAX_FILE_BYTES = 100_000_000;
/** Longest `content` of one message (and of one packet a plugin writes), in characters. */
export const MAX_CONTENT_LENGTH = 32 * 1024;
/** Most attachments on one message. */
export const MAX_ATTACHMENTS = 10;
/** Longest attachment or media URL. */
export const MAX_URL_LENGTH = 2048;

const pluginFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  events: Type.Optional(Type.Array(EventKindSchema, { uniqueItems: true, maxItems: 50 })),
  inputsSchema: Type.Optional(JsonObject),
  isPublic: Type.Optional(Type.Boolean()),
  scopes: Type.Optional(Type.Array(ScopeSchema, { uniqueItems: true, maxItems: 50 })),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { uniqueItems: true, maxItems: 20 }),
  ),
  type: PluginTypeSchema,
  webhookUrl: Type.Optional(
    Nullable(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 })),
  ),
};
const pluginExample = {
  name: 'Weather',
  description: 'Answers questions about the weather',
  type: 'EVENT_HANDLER',
  events: ['AGENT_MESSAGE_RECEIVED'],
  scopes: ['AGENT_MESSAGE_WRITE'],
  tags: ['weather'],
  isPublic: false,
  webhookUrl: 'https://example.com/webhook',
};

/** POST /api/orgs/:orgId/plugins. */
export const PluginCreateSchema = Type.Object(pluginFields, {
  additionalProperties: false,
  examples: [pluginExample],
});
export type PluginCreate = Static<typeof PluginCreateSchema>;

/** POST /api/plugins: the org is in the body. */
export const PluginCreateWithOrgSchema = Type.Object(
  { ...pluginFields, orgId: Id },
  { additionalProperties: false, examples: [{ ...pluginExample, orgId: 'org_acme' }] },
);

/** PUT /api/plugins/:pluginId: any of the fields, at least one. */
export const PluginUpdateSchema = Type.Partial(Type.Object(pluginFields), {
  additionalProperties: false,
  minProperties: 1,
  examples: [{ isPublic: true }],
});
export type PluginUpdate = Static<typeof PluginUpdateSchema>;

const definitionName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$',
});
const definitionFields = {
  title: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
};

/** POST /api/plugins/:pluginId/actions. */
export const ActionCreateSchema = Type.Object(
  {
    name: definitionName,
    ...definitionFields,
    argsSchema: Type.Optional(JsonObject),
    returnSchema: Type.Optional(JsonObject),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'get_forecast',
        title: 'Get forecast',
        argsSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  },
);
export type ActionCreate = Static<typeof ActionCreateSchema>;
export const ActionUpdateSchema = Type.Partial(ActionCreateSchema, {
  additionalProperties: false,
  minProperties: 1,
  examples: [{ title: 'Forecast' }],
});
export type ActionUpdate = Static<typeof ActionUpdateSchema>;

/** POST /api/plugins/:pluginId/external-events. */
export const ExternalEventCreateSchema = Type.Object(
  { name: definitionName, ...definitionFields, payloadSchema: Type.Optional(JsonObject) },
  {
    additionalProperties: false,
    examples: [
      { name: 'storm_warning', title: 'Storm warning', payloadSchema: { type: 'object' } },
    ],
  },
);
export type ExternalEventCreate = Static<typeof ExternalEventCreateSchema>;
export const ExternalEventUpdateSchema = Type.Partial(ExternalEventCreateSchema, {
  additionalProperties: false,
  minProperties: 1,
  examples: [{ title: 'Storm' }],
});
export type ExternalEventUpdate = Static<typeof ExternalEventUpdateSchema>;

const repositoryFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
};
/** POST /api/orgs/:orgId/repositories. */
export const RepositoryCreateSchema = Type.Object(repositoryFields, {
  additionalProperties: false,
  examples: [{ name: 'Docs', description: 'Product manuals' }],
});
export type RepositoryCreate = Static<typeof RepositoryCreateSchema>;
/** POST /api/repositories: the org is in the body. */
export const RepositoryCreateWithOrgSchema = Type.Object(
  { ...repositoryFields, orgId: Id },
  { additionalProperties: false, examples: [{ name: 'Docs', orgId: 'org_acme' }] },
);

/** POST /api/tokens. */
export const TokenCreateSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    orgId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  },
  { additionalProperties: false, examples: [{ name: 'ci', orgId: 'org_acme' }] },
);
export type TokenCreate = Static<typeof TokenCreateSchema>;

/** POST /api/{repositories/:id/data-providers | agents/:id/plugins | apps/:id/plugins}: install a plugin. */
export const InstanceCreateSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    pluginId: Id,
    events: Type.Array(EventKindSchema, { uniqueItems: true, maxItems: 50 }),
    scopes: Type.Array(ScopeSchema, { uniqueItems: true, maxItems: 50 }),
    inputs: Type.Optional(JsonObject),
    eventDispatchMode: Type.Optional(DispatchModeSchema),
    eventDispatchCondition: Type.Optional(AnyJson),
    orgId: Type.Optional(Id),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'weather',
        pluginId: 'plg_123',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: ['AGENT_MESSAGE_WRITE'],
      },
    ],
  },
);
export type InstanceCreate = Static<typeof InstanceCreateSchema>;

/** Longest upload file name, and longest folder. */
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_FOLDER_LENGTH = 100;
/** Most seconds an access URL may be asked for (7 days). */
export const MAX_ACCESS_SECONDS = 7 * 24 * 3600;

// A file name: 1 to 255 characters, none of / \ : * ? " < > | nor a control character, not "." or "..".
const NAME_CHAR = '[^/\\\\:*?"<>|\\x00-\\x1f\\x7f]';
const NAME_CHAR_NOT_DOT = '[^/\\\\:*?"<>|\\x00-\\x1f\\x7f.]';
const FILE_NAME = `(?:${NAME_CHAR_NOT_DOT}${NAME_CHAR}*|\\.${NAME_CHAR_NOT_DOT}${NAME_CHAR}*|\\.\\.${NAME_CHAR}+)`;
/** A file name as the emulator takes it. */
export const FILE_NAME_PATTERN = `^${FILE_NAME}$`;
/** A folder: file names separated by single slashes; leading and trailing slashes are dropped. */
export const FOLDER_PATTERN = `^/*${FILE_NAME}(?:/${FILE_NAME})*/*$`;

/** One file asked for in an upload-URL request. */
export const UploadFileSpecSchema = Type.Object(
  {
    fileName: Type.String({
      minLength: 1,
      maxLength: MAX_FILE_NAME_LENGTH,
      pattern: FILE_NAME_PATTERN,
      // maxLength counts code points; the emulator counts UTF-16 units, so a character outside the BMP (an emoji) counts twice.
      description: `1 to ${MAX_FILE_NAME_LENGTH} characters (UTF-16 units: an emoji counts 2), none of / \\ : * ? " < > | nor a control character, not "." or ".."`,
    }),
    contentType: Type.Optional(Type.String({ maxLength: 255 })),
    fileSize: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FILE_BYTES,
        description: `Bytes, at most ${MAX_FILE_BYTES} (the spec's 100 MB, as SI megabytes)`,
      }),
    ),
    isPublic: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'UploadFileSpec' },
);
export type UploadFileSpec = Static<typeof UploadFileSpecSchema>;

/** GET|POST /api/generate-upload-url. */
export const UploadUrlRequestSchema = Type.Object(
  {
    files: Type.Array(UploadFileSpecSchema, { minItems: 1, maxItems: MAX_FILES_PER_REQUEST }),
    folder: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_FOLDER_LENGTH,
        pattern: FOLDER_PATTERN,
        description: `Up to ${MAX_FOLDER_LENGTH} characters: file names separated by single slashes (no empty, "." or ".." segment); leading and trailing slashes are dropped`,
      }),
    ),
    parentId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    parentType: Type.Optional(ParentTypeSchema),
    orgId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "An extension of the emulator (the spec's request has no orgId): the org that owns files without a parent or with a KNOWLEDGE parent; without it, the org the token is limited to, else the user's only org. A platform may refuse it: send it only when the user is in several orgs",
        [EXTENSION]: true,
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'UploadUrlRequest',
    // parentId and parentType go together: draft-7 `dependencies` for ajv; the OpenAPI document writes `dependentRequired`.
    dependencies: { parentId: ['parentType'], parentType: ['parentId'] },
    examples: [
      {
        files: [{ fileName: 'manual.pdf', contentType: 'application/pdf', fileSize: 52000 }],
        folder: 'docs',
      },
    ],
  },
);
export type UploadUrlRequest = Static<typeof UploadUrlRequestSchema>;

/** GET /api/access/:fileId: how long a private file's URL stays valid, in seconds (1 to 7 days; default 1 hour); read by the handler. */
export const FileAccessQuerySchema = HandlerQuery({
  expiresIn: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ACCESS_SECONDS,
    default: 3600,
    description: `Seconds, from 1 to ${MAX_ACCESS_SECONDS}; given once, decimal digits only`,
    examples: [3600],
  },
});

/** PATCH /api/status. */
export const FileStatusUpdateSchema = Type.Object(
  {
    fileId: Id,
    status: FileStatusSchema,
    errorMessage: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false, examples: [{ fileId: 'file_123', status: 'UPLOADED' }] },
);
export type FileStatusUpdate = Static<typeof FileStatusUpdateSchema>;

/** POST /api/repositories/:repositoryId/files. */
export const RepositoryFileAddSchema = Type.Object(
  { fileId: Id },
  { additionalProperties: false, examples: [{ fileId: 'file_123' }] },
);

export const AttachmentInputSchema = Type.Object(
  { type: AttachmentTypeSchema, content: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH }) },
  { additionalProperties: false },
);

/** POST /conversations (messaging API). */
export const ConversationCreateSchema = Type.Object(
  { characterId: Id },
  { additionalProperties: false, examples: [{ characterId: 'char_nova' }] },
);

/** POST /conversations/:id/messages (messaging API); per-type content rules are checked after the schema. */
export const MessageSendSchema = Type.Object(
  {
    content: Type.String({ minLength: 1, maxLength: MAX_CONTENT_LENGTH }),
    type: Type.Optional(
      Type.Unsafe<Static<typeof MessageTypeSchema>>({ ...MessageTypeSchema, default: 'TEXT' }),
    ),
    attachments: Type.Optional(
      Type.Unsafe<Array<Static<typeof AttachmentInputSchema>>>({
        type: 'array',
        maxItems: MAX_ATTACHMENTS,
        items: AttachmentInputSchema,
        default: [],
      }),
    ),
  },
  { additionalProperties: false, examples: [{ content: 'hello' }] },
);
export type MessageSend = Static<typeof MessageSendSchema>;

/** Most messages per page of GET /conversations/:id/messages, and how many when none is asked. */
export const MAX_MESSAGE_PAGE = 100;
export const DEFAULT_MESSAGE_PAGE = 50;

/** GET /conversations/:id/messages: oldest first, `after` for polling; read by the handler. */
export const MessageListQuerySchema = HandlerQuery({
  after: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'The messages after the message with this id (polling); given once',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_MESSAGE_PAGE,
    description: `Messages per page, 1 to ${MAX_MESSAGE_PAGE}; given once, decimal digits only`,
  },
});

/** POST /api/agents/:agentId/conversations/:conversationId/messages (an instance token with AGENT_MESSAGE_WRITE). */
export const AgentMessageWriteSchema = Type.Object(
  {
    // Empty is allowed: a plugin may open a message before it has text, or close one with no last delta.
    content: Type.String({ maxLength: MAX_CONTENT_LENGTH }),
    type: Type.Optional(
      Type.Unsafe<Static<typeof MessageTypeSchema>>({ ...MessageTypeSchema, default: 'TEXT' }),
    ),
    isStreaming: Type.Optional(Type.Boolean()),
    messageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    attachments: Type.Optional(Type.Array(AttachmentInputSchema, { maxItems: MAX_ATTACHMENTS })),
  },
  { additionalProperties: false, examples: [{ content: 'Sunny, 21°C', isStreaming: false }] },
);
export type AgentMessageWrite = Static<typeof AgentMessageWriteSchema>;

/** POST /_emulator/events: emit a platform event to a plugin (admin API). */
export const EventEmitSchema = Type.Object(
  {
    type: EventKindSchema,
    pluginId: Id,
    pluginInstanceId: Type.Optional(Id),
    data: JsonObject,
    mode: Type.Optional(DispatchModeSchema),
  },
  {
    additionalProperties: false,
    examples: [
      {
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: 'plg_123',
        pluginInstanceId: 'pi_123',
        data: { agentId: 'agent_nova' },
      },
    ],
  },
);
export type EventEmit = Static<typeof EventEmitSchema>;

const deliveryFilter = (description: string, pattern: string, examples: string[]) =>
  Type.Optional(Type.String({ description, pattern, examples }));
/** The delivery log's own filters (GET and bulk POST /_emulator/deliveries/redeliver), beside the query system's. */
export const DELIVERY_FILTER_PARAMETERS = {
  '@failedOnce': deliveryFilter(
    'true: only deliveries with at least one attempt that failed (not 2xx, or no answer), whatever their status now',
    '^(true|false)$',
    ['true'],
  ),
  '@faulted': deliveryFilter(
    'true: only deliveries into which fault injection put at least one fault (see `faults`)',
    '^(true|false)$',
    ['true'],
  ),
  '@httpStatus': deliveryFilter(
    "The last attempt's answer: statuses (500), classes (5xx) or none (no answer), comma-separated",
    HTTP_STATUS_FILTER_PATTERN,
    ['5xx,none'],
  ),
  '@minAttempts': deliveryFilter('At least this many attempts', '^[0-9]{1,4}$', ['2']),
  '@maxAttempts': deliveryFilter('At most this many attempts', '^[0-9]{1,4}$', ['1']),
  '@since': deliveryFilter(
    'Created at or after this time (ISO 8601)',
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(?:Z|[+-][0-9]{2}:[0-9]{2})$',
    ['2026-01-01T00:00:00Z'],
  ),
  '@until': deliveryFilter(
    'Created before this time (ISO 8601)',
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(?:Z|[+-][0-9]{2}:[0-9]{2})$',
    ['2026-01-02T00:00:00Z'],
  ),
  '@scenarioContains': Type.Optional(
    Type.String({
      description:
        'Part of the name of the scenario the delivery was emitted under, in any case, commas included (the `scenario` filter takes whole names)',
      minLength: 1,
      maxLength: 200,
      examples: ['checkout'],
    }),
  ),
};
export type DeliveryFilterParameters = { [K in keyof typeof DELIVERY_FILTER_PARAMETERS]?: string };

const deliveryQuery = (properties: Record<string, TSchema>, description: string) =>
  Type.Unsafe<RawQuery & DeliveryFilterParameters>(
    Type.Object(
      { ...properties, ...DELIVERY_FILTER_PARAMETERS },
      { additionalProperties: true, description },
    ),
  );

/** POST /_emulator/deliveries/redeliver: the filters of the list (no paging); every match is resent. */
export const DeliveryBulkQuerySchema = deliveryQuery(
  { '@search': ListQuerySchema.properties['@search'] },
  "The list's filters: every delivery they match (challenges left out) is resent",
);

/** Most deliveries one bulk resend (POST /_emulator/deliveries/redeliver) sends: a filter that matches more is refused (narrow it). */
export const MAX_BULK_REDELIVERIES = 1000;

/** `data` of POST /_emulator/deliveries/redeliver. */
export const BulkRedeliveryResultSchema = Type.Object(
  {
    count: Type.Integer({ description: 'How many deliveries were resent' }),
    skipped: Type.Integer({ description: 'Matches never resent (WEBHOOK_CHALLENGE)' }),
    deliveries: Type.Array(Type.String(), { description: 'The ids of the new deliveries' }),
  },
  { title: 'BulkRedeliveryResult' },
);
export type BulkRedeliveryResult = Static<typeof BulkRedeliveryResultSchema>;

/** POST /_emulator/deliveries/:id/redeliver: `wait=false` answers at once, before the first attempt. */
export const RedeliverQuerySchema = Type.Object(
  {
    wait: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description:
          'false: answer at once with the pending delivery (default true: after its first attempt)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** GET /_emulator/deliveries/stream: only the attempts of deliveries with these values (admin API). */
export const DeliveryStreamQuerySchema = Type.Partial(
  Type.Object({
    pluginId: Id,
    type: EventKindSchema,
    status: DeliveryStatusSchema,
    pluginInstanceId: Id,
  }),
  { additionalProperties: false },
);
export type DeliveryStreamQuery = Static<typeof DeliveryStreamQuerySchema>;

const nameField = Type.String({ minLength: 1, maxLength: 200 });
/** POST /_emulator/agents. */
export const AgentCreateSchema = Type.Object(
  { id: Type.Optional(ChosenId), orgId: Id, name: nameField },
  { additionalProperties: false, examples: [{ orgId: 'org_acme', name: 'Nova agent' }] },
);
/** PATCH /_emulator/agents/:agentId. */
export const AgentRenameSchema = Type.Object(
  { name: nameField },
  { additionalProperties: false, examples: [{ name: 'Nova' }] },
);
/** POST /_emulator/api-keys. */
export const ApiKeyCreateSchema = Type.Object(
  { orgId: Id, name: Type.Optional(nameField) },
  { additionalProperties: false, examples: [{ orgId: 'org_acme', name: 'web' }] },
);

/** Longest grace period a webhook secret rotation may give the previous secret: 30 days. */
const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;

/** POST /api/plugins/:pluginId/webhook-secret/rotate; no body (or null) keeps the default grace (24 h). */
export const WebhookSecretRotateSchema = Type.Unsafe<{ graceSeconds?: number } | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    graceSeconds: {
      type: 'number',
      minimum: 0,
      maximum: MAX_ROTATION_GRACE_SECONDS,
      description: 'Seconds the previous secret keeps signing beside the new one',
    },
  },
  examples: [{ graceSeconds: 3600 }],
});
