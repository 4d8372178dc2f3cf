import type { Store } from './store/store.js';
import type { Db } from './model.js';
import type { Principal } from './auth/principal.js';
import type { EventDispatcher } from './webhooks/dispatcher.js';
import type { Messaging } from './messaging/messaging.js';
import type { ObjectStorage } from './uploads/storage/types.js';
import type { AdminAccess } from './admin/guard.js';
import type { DashboardLogins } from './admin/dashboard-logins.js';
import type { SlowBodyBound } from './slow-body.js';

/** The default workspace's credentials and ids, as the dashboard uses them (null where the seed has none). */
export interface WorkspaceCredentials {
  token: string | null;
  apiKey: string | null;
  orgId: string | null;
  userId: string | null;
  agentId: string | null;
  characterId: string | null;
}

/** Settings of one running emulator. */
export interface EmulatorConfig {
  /** Base URL of the management API once listening (known after listen). */
  publicUrl: () => string;
  /** Base URL of the messaging API once listening. */
  messagingUrl: () => string;
  /** Who may call the admin surface (`/_emulator`): its credential, remote opt-in, bound host. */
  admin: AdminAccess & { logins: DashboardLogins };
  /** The store's stable id (see store/store-id.ts). */
  storeId: string;
  /** The data dir, or null in memory. */
  dataDir: string | null;
  /** Where uploads are kept: the embedded store, or an S3-compatible server's endpoint origin and bucket. */
  storageBackend: { backend: 'embedded' | 's3'; endpoint: string | null; bucket: string | null };
  /** When this emulator started. */
  startedAt: Date;
  /** The OpenAI-compatible backend of `engine: 'openai'` characters, without its API key; null when none is set. */
  llm: { baseUrl: string; model: string; hasApiKey: boolean } | null;
  /** The default workspace (the seed's first token, its org, that org's first agent and character). */
  credentials: WorkspaceCredentials;
  /** Check every JSON response against the OpenAPI document (openapi/contract-check.ts). */
  contractCheck: boolean;
  /** How long a request body may take (slow-body.ts); default DEFAULT_SLOW_BODY_BOUND. */
  slowBodies?: SlowBodyBound;
}

/** What the routes and services of one running emulator share: the store and its collections, the configuration, webhook delivery, messaging and object storage. */
export interface EmulatorContext {
  store: Store;
  db: Db;
  config: EmulatorConfig;
  /** Webhook delivery: emit events to plugins, the delivery log, challenges. */
  events: EventDispatcher;
  /** Messaging: conversations, character replies in packets, event streams. */
  messaging: Messaging;
  /** Object storage for uploads: the embedded store, or S3/MinIO. */
  storage: ObjectStorage;
  /** Empties the store and loads the seed again (set by startEmulator; the admin API's reset). */
  reset?: () => Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, from the Authorization header; null when there is none. */
    principal: Principal | null;
  }
}
