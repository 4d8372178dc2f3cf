import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './schema.js';

// The dashboard's wire: the session it opens with a login code, and the login links the admin API mints.

/** `data` of `GET|POST /_emulator/dashboard/session`: where the two APIs are, and the default workspace's credentials. */
export const WorkspaceSchema = Type.Object({
  managementUrl: Type.String(),
  messagingUrl: Type.String(),
  /** A management token of the default workspace (null when the emulator knows none in clear). */
  token: Nullable(Type.String()),
  /** An API key of the default workspace's org (null when the emulator knows none in clear). */
  apiKey: Nullable(Type.String()),
  orgId: Nullable(Type.String()),
  userId: Nullable(Type.String()),
  agentId: Nullable(Type.String()),
  characterId: Nullable(Type.String()),
  storeId: Type.String(),
  persistent: Type.Boolean(),
  /** The data dir, or null in memory. */
  dataDir: Nullable(Type.String()),
});
export type Workspace = Static<typeof WorkspaceSchema>;

/** `data` of `POST /_emulator/dashboard/session`: the workspace and session token (sent as `x-plugsmith-session`: cookies ignore ports). */
export const DashboardSessionSchema = Type.Object({
  ...WorkspaceSchema.properties,
  /** The session token: send it as `x-plugsmith-session: <session>`; it lives until signed out or the emulator stops. */
  session: Type.String(),
});
export type DashboardSession = Static<typeof DashboardSessionSchema>;

/** Body of `POST /_emulator/dashboard/session`: the one-time code of a login link (`#login=<code>`). */
export const DashboardLoginSchema = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);

/** `data` of `POST /_emulator/dashboard/login-links`: a fresh single-use dashboard link. */
export const DashboardLinkSchema = Type.Object({
  /** `<managementUrl>/_emulator/dashboard/#login=<code>`: works once, until the emulator stops. */
  dashboardUrl: Type.String(),
});

/** `data` of `DELETE /_emulator/dashboard/session`. */
export const DashboardSignedOutSchema = Type.Object({ signedOut: Type.Literal(true) });

/** The collections of the emulator's store, as the overview counts them. */
export const STORE_COLLECTIONS = [
  'users',
  'orgs',
  'memberships',
  'tokens',
  'apiKeys',
  'plugins',
  'actions',
  'externalEvents',
  'repositories',
  'agents',
  'characters',
  'instances',
  'deliveries',
  'conversations',
  'messages',
  'files',
  'repositoryFiles',
] as const;

/** `data` of `GET /_emulator/overview`: what runs where, what the store holds, how deliveries stand. */
export const OverviewSchema = Type.Object({
  ...Type.Pick(WorkspaceSchema, [
    'managementUrl',
    'messagingUrl',
    'storeId',
    'persistent',
    'dataDir',
  ]).properties,
  /** When this emulator started (ISO 8601) and how long ago, in whole seconds. */
  startedAt: Type.String({ format: 'date-time' }),
  uptimeSeconds: Type.Integer({ minimum: 0 }),
  /** Records per collection of the store. */
  counts: Type.Object(
    Object.fromEntries(STORE_COLLECTIONS.map((c) => [c, Type.Integer({ minimum: 0 })])) as Record<
      (typeof STORE_COLLECTIONS)[number],
      ReturnType<typeof Type.Integer>
    >,
  ),
  /** The webhook delivery queue: waiting for a first attempt, waiting for a retry, given up (failed or retries exhausted), delivered. */
  deliveryQueue: Type.Object({
    pending: Type.Integer({ minimum: 0 }),
    retrying: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    delivered: Type.Integer({ minimum: 0 }),
  }),
  /** How deliveries are tried: attempts in all (the first and its scheduled retries) and each attempt's timeout. */
  deliveryPolicy: Type.Optional(
    Type.Object({
      attempts: Type.Integer({ minimum: 1 }),
      timeoutMs: Type.Integer({ minimum: 0 }),
    }),
  ),
  /** Where uploads are kept: the embedded store (served under /_storage) or an S3-compatible server. */
  storage: Type.Object({
    backend: Type.Union([Type.Literal('embedded'), Type.Literal('s3')]),
    /** The S3 endpoint's origin (null for the embedded store). */
    endpoint: Nullable(Type.String()),
    bucket: Nullable(Type.String()),
  }),
  /** The OpenAI-compatible backend of `engine: 'openai'` characters, if one is configured (its API key is never shown). */
  llm: Nullable(
    Type.Object({ baseUrl: Type.String(), model: Type.String(), hasApiKey: Type.Boolean() }),
  ),
});
export type Overview = Static<typeof OverviewSchema>;
