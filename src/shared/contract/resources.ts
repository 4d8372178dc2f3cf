import { Type, type Static } from '@sinclair/typebox';
import { AnyJson, Id, JsonObject, Nullable, Timestamps, Timestamp } from './schema.js';
import { PluginOutputLineSchema } from './plugin-output.js';
import { EXTENSION } from './requests.js';
import {
  AttachmentTypeSchema,
  CharacterEngineSchema,
  DeliveryStatusSchema,
  DispatchModeSchema,
  EventKindSchema,
  FileStatusSchema,
  InstanceEntityTypeSchema,
  MessageTypeSchema,
  ParentTypeSchema,
  PluginTypeSchema,
  ScopeSchema,
  SenderSchema,
} from './enums.js';

// Every resource as the emulator returns it: responses are serialized from these, so an unnamed field (a secret hash…) never leaves.

/** A plugin. `webhookSecret` is shown to MEMBER and OWNER of the owning org only. */
export const PluginSchema = Type.Object(
  {
    id: Id,
    orgId: Id,
    name: Type.String(),
    description: Type.String(),
    type: PluginTypeSchema,
    events: Type.Array(EventKindSchema),
    scopes: Type.Array(ScopeSchema),
    tags: Type.Array(Type.String()),
    inputsSchema: JsonObject,
    isPublic: Type.Boolean(),
    webhookUrl: Nullable(Type.String()),
    webhookUrlIsVerified: Type.Boolean(),
    webhookSecret: Type.Optional(
      Type.String({ description: 'whsec_…: only for MEMBER and OWNER of the owning org' }),
    ),
    ...Timestamps,
  },
  { title: 'Plugin' },
);
export type Plugin = Static<typeof PluginSchema>;

/** What actions and external events (a plugin's named definitions) have in common. */
const definitionFields = {
  id: Id,
  pluginId: Id,
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
};

/** An action a plugin offers. */
export const ActionSchema = Type.Object(
  {
    ...definitionFields,
    argsSchema: Type.Optional(JsonObject),
    returnSchema: Type.Optional(JsonObject),
    ...Timestamps,
  },
  { title: 'Action' },
);
export type Action = Static<typeof ActionSchema>;

/** An external event a plugin can raise. */
export const ExternalEventSchema = Type.Object(
  { ...definitionFields, payloadSchema: Type.Optional(JsonObject), ...Timestamps },
  { title: 'ExternalEvent' },
);
export type ExternalEvent = Static<typeof ExternalEventSchema>;

export const RepositorySchema = Type.Object(
  { id: Id, orgId: Id, name: Type.String(), description: Type.String(), ...Timestamps },
  { title: 'Repository' },
);
export type Repository = Static<typeof RepositorySchema>;

export const AgentSchema = Type.Object(
  { id: Id, orgId: Id, name: Type.String(), ...Timestamps },
  { title: 'Agent' },
);
export type Agent = Static<typeof AgentSchema>;

/** A user token as created: the secret is at `token`, shown once. */
export const CreatedTokenSchema = Type.Object(
  {
    id: Id,
    name: Type.String(),
    orgId: Nullable(Type.String()),
    token: Type.String(),
    createdAt: Timestamp,
  },
  { title: 'CreatedToken' },
);
export type CreatedToken = Static<typeof CreatedTokenSchema>;

/** A plugin installed on an agent, a repository (data provider) or an app (the spec's instance table). */
export const PluginInstanceSchema = Type.Object(
  {
    id: Id,
    agentId: Type.Optional(
      Type.String({ description: 'Present when the instance is attached to an agent' }),
    ),
    entityId: Id,
    entityType: InstanceEntityTypeSchema,
    eventDispatchCondition: AnyJson,
    eventDispatchMode: DispatchModeSchema,
    events: Type.Array(Type.String()),
    inputs: JsonObject,
    name: Type.String(),
    orgId: Id,
    pluginId: Id,
    scopes: Type.Array(Type.String()),
    ...Timestamps,
  },
  { title: 'PluginInstance' },
);
export type PluginInstance = Static<typeof PluginInstanceSchema>;

/** An uploaded (or awaited) file: status null until the upload is reported. */
export const FileSchema = Type.Object(
  {
    id: Id,
    fileName: Type.String(),
    contentType: Nullable(Type.String()),
    fileSize: Nullable(Type.Integer()),
    isPublic: Type.Boolean(),
    status: Nullable(FileStatusSchema),
    errorMessage: Nullable(Type.String()),
    parentId: Nullable(Type.String()),
    parentType: Nullable(ParentTypeSchema),
    folder: Nullable(Type.String()),
    orgId: Id,
    ...Timestamps,
  },
  { title: 'File' },
);
export type File = Static<typeof FileSchema>;

export const AttachmentSchema = Type.Object(
  { type: AttachmentTypeSchema, content: Type.String() },
  { additionalProperties: false },
);
export type Attachment = Static<typeof AttachmentSchema>;

export const ConversationSchema = Type.Object(
  { id: Id, characterId: Id, ...Timestamps },
  { title: 'Conversation' },
);
export type Conversation = Static<typeof ConversationSchema>;

/** A message; a CHARACTER reply grows while `isStreaming` is true. `error` is set on a failed reply. */
export const MessageSchema = Type.Object(
  {
    id: Id,
    conversationId: Id,
    sender: SenderSchema,
    type: MessageTypeSchema,
    content: Type.String(),
    attachments: Type.Array(AttachmentSchema),
    isStreaming: Type.Boolean(),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    ...Timestamps,
  },
  { title: 'Message' },
);
export type Message = Static<typeof MessageSchema>;

/** A character of the emulator (admin API). */
export const CharacterSchema = Type.Object(
  {
    id: Id,
    orgId: Id,
    agentId: Nullable(Type.String()),
    name: Type.String(),
    persona: Type.Optional(Type.String()),
    engine: Type.Optional(CharacterEngineSchema),
    script: Type.Optional(Type.Array(Type.Object({ match: Type.String(), reply: Type.String() }))),
    fallbackReply: Type.Optional(Type.String()),
    packetSize: Type.Optional(Type.Integer()),
    packetIntervalMs: Type.Optional(Type.Integer()),
    ...Timestamps,
  },
  { title: 'Character' },
);
export type Character = Static<typeof CharacterSchema>;

/** A messaging API key as listed: only its last characters (`hint`); `key` only when created. */
export const ApiKeySchema = Type.Object(
  {
    id: Id,
    orgId: Id,
    name: Type.String(),
    hint: Type.String(),
    key: Type.Optional(Type.String({ description: 'The secret: shown once, at creation' })),
    ...Timestamps,
  },
  { title: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKeySchema>;

/** One HTTP attempt of a delivery. */
export const DeliveryAttemptSchema = Type.Object({
  number: Type.Integer(),
  startedAt: Timestamp,
  url: Type.String(),
  webhookTimestamp: Type.String(),
  durationMs: Type.Number(),
  responseStatus: Nullable(Type.Integer()),
  responseBody: Nullable(Type.String()),
  error: Nullable(Type.String()),
  nextAttemptAt: Nullable(Type.String()),
  requestHeaders: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description:
        'The headers sent: webhook-id, webhook-timestamp, webhook-signature (Standard Webhooks), content-type, user-agent. The body sent is exactly JSON.stringify(delivery.event).',
    }),
  ),
  responseHeaders: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description:
        "The webhook's answer headers (lower-case names; at most 64, each cut at 1 KB); absent when no answer came",
    }),
  ),
  pluginOutput: Type.Optional(
    Type.Array(PluginOutputLineSchema, {
      description:
        "The plugin's own output linked to this attempt (GET /_emulator/deliveries/:id only): lines naming the event id or webhook-id, and lines written between the send and the answer; untrusted text. Absent when plugsmith does not run the plugin (dev, scenario run --start) or its lines fell out of the plugin's bounded output",
    }),
  ),
});
export type DeliveryAttempt = Static<typeof DeliveryAttemptSchema>;

/** A fault the emulator injected into one attempt of a delivery (see the README's "Fault injection"). */
export const FaultMarkSchema = Type.Union(
  [
    Type.Object({ kind: Type.Literal('delay'), attempt: Type.Integer(), ms: Type.Number() }),
    Type.Object({
      kind: Type.Literal('reorder'),
      attempt: Type.Integer(),
      heldMs: Type.Number(),
      overtakenBy: Nullable(Type.String()),
    }),
    Type.Object({ kind: Type.Literal('drop'), attempt: Type.Integer() }),
    Type.Object({
      kind: Type.Literal('timeout-after-answer'),
      attempt: Type.Integer(),
      answeredStatus: Type.Integer(),
    }),
    Type.Object({ kind: Type.Literal('duplicate'), attempt: Type.Integer(), of: Type.Integer() }),
  ],
  { title: 'FaultMark' },
);
export type FaultMark = Static<typeof FaultMarkSchema>;

/** One event sent to one plugin webhook, with every attempt (the delivery log; never the signing secret). */
export const DeliverySchema = Type.Object(
  {
    id: Id,
    eventId: Type.String(),
    type: EventKindSchema,
    pluginId: Id,
    pluginInstanceId: Nullable(Type.String()),
    orgId: Id,
    url: Nullable(Type.String()),
    event: JsonObject,
    status: DeliveryStatusSchema,
    mode: DispatchModeSchema,
    retries: Type.Boolean(),
    attempts: Type.Array(DeliveryAttemptSchema),
    nextAttemptAt: Nullable(Type.String()),
    redeliveryOf: Nullable(Type.String()),
    cancelledAt: Type.Optional(
      Type.String({
        description:
          'When its retries were cancelled (POST /_emulator/deliveries/:id/cancel, or a resend of it while it was pending): it is then failed',
      }),
    ),
    scenario: Type.Optional(
      Type.String({
        description:
          'The scenario that was running when it was emitted (PUT /_emulator/scenario; plugsmith scenario run)',
      }),
    ),
    heldSince: Type.Optional(
      Type.String({
        description:
          "Present while the delivery waits for its plugin's hold to be released (PUT /_emulator/plugins/:pluginId/hold): since then no attempt is made; it goes, oldest first, when the hold is released or expires",
      }),
    ),
    faults: Type.Optional(
      Type.Array(FaultMarkSchema, {
        description: 'The faults injected into its attempts, when fault injection is on',
      }),
    ),
    ...Timestamps,
  },
  { title: 'Delivery' },
);
export type Delivery = Static<typeof DeliverySchema>;

/** `data` of an `attempt` event of GET /_emulator/deliveries/stream: the delivery after one attempt, and that attempt. */
export const DeliveryAttemptNoticeSchema = Type.Object(
  { delivery: DeliverySchema, attempt: DeliveryAttemptSchema },
  { title: 'DeliveryAttemptNotice' },
);
export type DeliveryAttemptNotice = Static<typeof DeliveryAttemptNoticeSchema>;

/** `data` of GET /_emulator/stream's events (`hello`, `store-replaced`): a new `epoch` (reset, import, restart) makes every list held stale. */
export const StoreEpochNoticeSchema = Type.Object(
  {
    epoch: Type.String({
      description:
        'The emulator start and store generation: changes at every reset, import and restart',
    }),
    reason: Type.Optional(
      Type.Union([Type.Literal('reset'), Type.Literal('import')], {
        description: 'What replaced the store (store-replaced only)',
      }),
    ),
  },
  { title: 'StoreEpochNotice' },
);
export type StoreEpochNotice = Static<typeof StoreEpochNoticeSchema>;

/** `data` of POST /api/plugins/:id/verify-webhook. */
export const WebhookVerificationSchema = Type.Object({
  verified: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  deliveryId: Type.Optional(Type.String()),
});
export type WebhookVerification = Static<typeof WebhookVerificationSchema>;

/** `data` of GET|POST /api/generate-upload-url: one signed URL per file. */
export const UploadUrlsSchema = Type.Object({
  files: Type.Array(Type.Object({ signedUrl: Type.String(), fileRecord: FileSchema })),
  expiresIn: Type.Integer({ description: 'Seconds the signed URLs stay valid' }),
});
export type UploadUrls = Static<typeof UploadUrlsSchema>;

/** `data` of GET /api/access/:fileId: where to read the file. */
export const FileAccessSchema = Type.Object({
  fileId: Id,
  url: Type.String(),
  isPublic: Type.Boolean(),
  expiresAt: Nullable(Type.String()),
});
export type FileAccess = Static<typeof FileAccessSchema>;

/** `data` of a `CHARACTER_MESSAGE_SENT` server-sent event of a conversation's stream. */
export const CharacterMessageSentSchema = Type.Object(
  {
    message: MessageSchema,
    contentDelta: Type.Optional(
      Type.String({
        description:
          'The text this packet added to `message.content` (the content so far for the first event a client gets mid-reply; empty on a final packet that adds nothing). The emulator always sends it; the spec does not say a platform must',
      }),
    ),
  },
  { title: 'CharacterMessageSent' },
);
export type CharacterMessageSent = Static<typeof CharacterMessageSentSchema>;

/** `data` of POST /api/repositories/:repositoryId/files. */
export const RepositoryFileAddedSchema = Type.Object({
  repositoryId: Id,
  file: FileSchema,
  addedAt: Timestamp,
});
/** Who added a file to a repository (an emulator extension): a user's token, or a plugin instance's installation access token. */
export const RepositoryFileAdderSchema = Type.Union(
  [
    Type.Object(
      { kind: Type.Literal('user'), userId: Id },
      { description: "A user's token added it" },
    ),
    Type.Object(
      { kind: Type.Literal('instance'), instanceId: Id },
      { description: "A plugin instance's installation access token added it" },
    ),
  ],
  { title: 'RepositoryFileAdder' },
);
export type RepositoryFileAdder = Static<typeof RepositoryFileAdderSchema>;

/** An item of GET /api/repositories/:repositoryId/files: the file, with when and by whom it was added (extensions). */
export const RepositoryFileSchema = Type.Object(
  {
    ...FileSchema.properties,
    addedAt: Nullable(Timestamp, {
      description:
        'An extension of the emulator: when the file was added to the repository (null for a link imported without it)',
      [EXTENSION]: true,
    }),
    addedBy: Nullable(RepositoryFileAdderSchema, {
      description:
        'An extension of the emulator: who added the file to the repository (null for a link imported without it). Installation access tokens have no scope that adds files, so it is a user today',
      [EXTENSION]: true,
    }),
  },
  { title: 'RepositoryFile' },
);
export type RepositoryFile = Static<typeof RepositoryFileSchema>;

/** `data` of DELETE /api/repositories/:repositoryId/files/:fileId. */
export const RepositoryFileRemovedSchema = Type.Object({
  repositoryId: Id,
  fileId: Id,
  removed: Type.Boolean(),
});

/** `data` of the rotation: the new secret, and until when the previous one still signs (null: not at all). */
export const WebhookSecretRotationSchema = Type.Object(
  {
    id: Id,
    webhookSecret: Type.String({ description: 'whsec_…: the new signing secret' }),
    previousSecretExpiresAt: Nullable(Timestamp),
  },
  { title: 'WebhookSecretRotation' },
);
export type WebhookSecretRotation = Static<typeof WebhookSecretRotationSchema>;

/** `data` of a DELETE: what was deleted. */
export const DeletedSchema = Type.Object({
  id: Id,
  name: Type.Optional(Type.String()),
  deleted: Type.Boolean(),
});
export type Deleted = Static<typeof DeletedSchema>;

/** `data` of GET /_emulator/health. */
export const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  managementUrl: Type.String(),
  messagingUrl: Nullable(Type.String()),
  persistent: Type.Boolean(),
  storeId: Type.String(),
  pid: Type.Integer(),
});
export type Health = Static<typeof HealthSchema>;
