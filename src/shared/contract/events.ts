import { Type, type Static, type TNull, type TSchema } from '@sinclair/typebox';
import { EVENT_KINDS, type EventKind } from './enums.js';
import { FileSchema, MessageSchema, PluginInstanceSchema } from './resources.js';
import { Id, Timestamp } from './schema.js';

// The events the platform posts to a plugin's webhook URL (docs/emulator-behaviour.md, "Webhook delivery").

/** A file record as events carry it: open, because the platform may add fields. */
const OpenFile = Type.Intersect([FileSchema, Type.Record(Type.String(), Type.Unknown())]);

/** The `data` schema of each event kind. */
export const EVENT_DATA_SCHEMAS = {
  WEBHOOK_CHALLENGE: Type.Object({ challenge: Type.String() }),
  PLUGIN_INSTALLED: Type.Object({
    instance: PluginInstanceSchema,
    accessToken: Type.String({ description: "Carries the instance's scopes" }),
  }),
  PLUGIN_UNINSTALLED: Type.Object({ instance: PluginInstanceSchema }),
  AGENT_MESSAGE_RECEIVED: Type.Object({
    agentId: Id,
    characterId: Id,
    conversationId: Id,
    message: MessageSchema,
  }),
  REPOSITORY_FILE_ADDED: Type.Object({ repositoryId: Id, file: OpenFile }),
  REPOSITORY_FILE_REMOVED: Type.Object({ repositoryId: Id, file: OpenFile }),
} satisfies Record<EventKind, TSchema>;

/** The body of one delivery of an event of kind `kind`: the same `id` on every retry. */
function webhookEventSchema<K extends EventKind>(kind: K) {
  return Type.Object(
    {
      id: Type.String({
        description: 'The same on every retry of one delivery: the webhook-id header',
      }),
      type: Type.Literal(kind),
      createdAt: Timestamp,
      pluginId: Id,
      // A challenge concerns the plugin, every other event one instance (the admin trigger refuses one without).
      pluginInstanceId: (kind === 'WEBHOOK_CHALLENGE'
        ? Type.Null()
        : Id) as K extends 'WEBHOOK_CHALLENGE' ? TNull : typeof Id,
      orgId: Id,
      data: EVENT_DATA_SCHEMAS[kind] as (typeof EVENT_DATA_SCHEMAS)[K],
    },
    { title: `${kind} event` },
  );
}

/** The body schema of every event kind. */
export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(
  EVENT_KINDS.map((k) => [k, webhookEventSchema(k)]),
) as {
  [K in EventKind]: ReturnType<typeof webhookEventSchema<K>>;
};

/** The body of one delivery of each event kind, as TypeScript (what a plugin receives). */
export type WebhookEventBodies = { [K in EventKind]: Static<(typeof WEBHOOK_EVENT_SCHEMAS)[K]> };

/** The `data` of each event kind, as TypeScript. */
export type WebhookEventDataMap = { [K in EventKind]: Static<(typeof EVENT_DATA_SCHEMAS)[K]> };
