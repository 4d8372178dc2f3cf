import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './schema.js';

// The dashboard's wire: the session it opens with a login code, and the login links the admin API mints.

/**
 * `data` of `GET|POST /_emulator/dashboard/session`: where the two APIs are and the default
 * workspace's credentials (the dashboard calls `/api` and the messaging API as a client would).
 */
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
  dataDir: Nullable(Type.String()),
});
export type Workspace = Static<typeof WorkspaceSchema>;

/** Body of `POST /_emulator/dashboard/session`: the one-time code of a login link (`#login=<code>`). */
export const DashboardLoginSchema = Type.Object({ code: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' }) }, { additionalProperties: false });
export type DashboardLogin = Static<typeof DashboardLoginSchema>;

/** `data` of `POST /_emulator/dashboard/login-links`: a fresh single-use dashboard link. */
export const DashboardLinkSchema = Type.Object({
  /** `<managementUrl>/_emulator/dashboard/#login=<code>`: works once, until the emulator stops. */
  dashboardUrl: Type.String(),
});
export type DashboardLink = Static<typeof DashboardLinkSchema>;

/** `data` of `DELETE /_emulator/dashboard/session`. */
export const DashboardSignedOutSchema = Type.Object({ signedOut: Type.Literal(true) });
