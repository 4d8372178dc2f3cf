import { Type, type Static } from '@sinclair/typebox';
import { CHARACTER_ENGINES } from './enums.js';
import { ChosenId, Id, Nullable, StringEnum, Timestamps, Timestamp } from './schema.js';
import { MAX_CONTENT_LENGTH } from './requests.js';

// Views of the store the platform's API lacks (the dashboard's Data page): characters, token metadata, all conversations.

const closed = { additionalProperties: false } as const;

/** A character's script: the first line whose `match` (a case-insensitive regular expression) matches gives the reply. */
export const CharacterScriptSchema = Type.Array(
  Type.Object(
    {
      match: Type.String({ minLength: 1, maxLength: 1000 }),
      reply: Type.String({ maxLength: MAX_CONTENT_LENGTH }),
    },
    closed,
  ),
  { maxItems: 1000 },
);

// Every optional field may be null in a PATCH, which removes it (agentId becomes null).
const characterFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  agentId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  persona: Type.Optional(Nullable(Type.String({ maxLength: MAX_CONTENT_LENGTH }))),
  engine: Type.Optional(
    Type.Unsafe<(typeof CHARACTER_ENGINES)[number] | null>({
      type: ['string', 'null'],
      enum: [...CHARACTER_ENGINES, null],
    }),
  ),
  script: Type.Optional(Nullable(CharacterScriptSchema)),
  fallbackReply: Type.Optional(Nullable(Type.String({ maxLength: MAX_CONTENT_LENGTH }))),
  packetSize: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }))),
  packetIntervalMs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 60_000 }))),
};

/** POST /_emulator/characters. */
export const CharacterCreateSchema = Type.Object(
  { id: Type.Optional(ChosenId), orgId: Id, ...characterFields },
  {
    ...closed,
    examples: [
      {
        id: 'char_nova',
        orgId: 'org_acme',
        agentId: 'agent_nova',
        name: 'Nova',
        script: [{ match: 'hello', reply: 'Hi there!' }],
        fallbackReply: 'Tell me more.',
      },
    ],
  },
);

/** PATCH /_emulator/characters/:characterId: any field but `id` and `orgId`, at least one; null removes it. */
export const CharacterUpdateSchema = Type.Partial(Type.Object(characterFields), {
  ...closed,
  minProperties: 1,
  examples: [{ fallbackReply: 'Say more.', persona: null }],
});
export type CharacterUpdate = Static<typeof CharacterUpdateSchema>;

/** A user or installation token as the admin API lists it: metadata only, never the secret or its hash. */
export const TokenMetadataSchema = Type.Object(
  {
    id: Id,
    kind: StringEnum(['user', 'instance']),
    name: Type.String(),
    hint: Type.String({ description: "The token's last 4 characters" }),
    userId: Nullable(Type.String()),
    orgId: Nullable(Type.String()),
    instanceId: Nullable(Type.String()),
    revokedAt: Nullable(Timestamp),
    ...Timestamps,
  },
  { title: 'TokenMetadata' },
);
export type TokenMetadata = Static<typeof TokenMetadataSchema>;

/** A conversation as the admin API lists it: the messaging API's Conversation plus the org it belongs to. */
export const AdminConversationSchema = Type.Object(
  { id: Id, characterId: Id, orgId: Id, ...Timestamps },
  { title: 'AdminConversation' },
);
export type AdminConversation = Static<typeof AdminConversationSchema>;
