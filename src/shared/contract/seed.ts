import { Type, type Static } from '@sinclair/typebox';
import { CharacterEngineSchema, RoleSchema } from './enums.js';
import { Id, Nullable } from './schema.js';

/** A token or API key: what fits in an Authorization header as it is (visible ASCII, no spaces). */
const Credential = Type.String({ minLength: 8, maxLength: 500, pattern: '^[\\x21-\\x7e]+$' });
const closed = { additionalProperties: false } as const;

/** The seed file format (docs/emulator.md, its seed example): the people, orgs and characters an emulator starts with. */
export const SeedSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    users: Type.Array(Type.Object({ id: Id, name: Type.String() }, closed)),
    orgs: Type.Array(
      Type.Object(
        {
          id: Id,
          name: Type.String(),
          members: Type.Array(Type.Object({ userId: Id, role: RoleSchema }, closed)),
        },
        closed,
      ),
    ),
    tokens: Type.Array(
      Type.Object(
        {
          userId: Id,
          token: Credential,
          orgId: Type.Optional(Nullable(Type.String())),
          name: Type.Optional(Type.String()),
        },
        closed,
      ),
    ),
    agents: Type.Optional(
      Type.Array(Type.Object({ id: Id, orgId: Id, name: Type.String() }, closed)),
    ),
    characters: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Id,
            orgId: Id,
            agentId: Type.Optional(Nullable(Type.String())),
            name: Type.String(),
            persona: Type.Optional(Type.String()),
            engine: Type.Optional(CharacterEngineSchema),
            script: Type.Optional(
              Type.Array(Type.Object({ match: Type.String(), reply: Type.String() }, closed)),
            ),
            fallbackReply: Type.Optional(Type.String()),
            packetSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
            packetIntervalMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
          },
          closed,
        ),
      ),
    ),
    apiKeys: Type.Optional(
      Type.Array(
        Type.Object({ key: Credential, orgId: Id, name: Type.Optional(Type.String()) }, closed),
      ),
    ),
    repositories: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Id, orgId: Id, name: Type.String(), description: Type.Optional(Type.String()) },
          closed,
        ),
      ),
    ),
  },
  closed,
);
export type Seed = Static<typeof SeedSchema>;
