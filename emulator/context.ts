import type { Store } from './store/store.js';
import type { Db } from './model.js';
import type { Principal } from './auth/principal.js';
import type { EventDispatcher } from './webhooks/dispatcher.js';
import type { Messaging } from './messaging/messaging.js';
import type { ObjectStorage } from './uploads/storage/types.js';
import type { AdminAccess } from './admin/guard.js';
import type { DashboardLogins } from './admin/dashboard-logins.js';
import type { ConnectionBound } from './connection-bound.js';
import type { SlowBodyBound } from './slow-body.js';
import type { Overview, Workspace } from '../src/contract/index.js';

/** The default workspace's credentials and ids, as the dashboard uses them (null where the seed has none). */
export type WorkspaceCredentials = Pick<
  Workspace,
  'token' | 'apiKey' | 'orgId' | 'userId' | 'agentId' | 'characterId'
>;

/** Settings of one running emulator. */
interface EmulatorConfig {
  /** Base URL of the management API (known once listening). */
  publicUrl: () => string;
  /** Base URL of the messaging API (known once listening). */
  messagingUrl: () => string;
  /** Who may call the admin surface (`/_emulator`). */
  admin: AdminAccess & { logins: DashboardLogins };
  storeId: string;
  dataDir: string | null;
  /** Where uploads are kept, as the overview shows it (never credentials). */
  storageBackend: Overview['storage'];
  startedAt: Date;
  /** The backend of `engine: 'openai'` characters, without its API key. */
  llm: Overview['llm'];
  /** The default workspace (the seed's first token, its org, that org's first agent and character). */
  credentials: WorkspaceCredentials;
  /** Check every JSON response against the OpenAPI document (openapi/contract-check.ts). */
  contractCheck: boolean;
  slowBodies?: SlowBodyBound;
  connections?: ConnectionBound;
}

/** What the routes and services of one running emulator share. */
export interface EmulatorContext {
  store: Store;
  db: Db;
  config: EmulatorConfig;
  /** Webhook delivery: emit events to plugins, the delivery log, challenges. */
  events: EventDispatcher;
  /** Conversations, character replies in packets, event streams. */
  messaging: Messaging;
  /** Object storage for uploads: the embedded store, or S3/MinIO. */
  storage: ObjectStorage;
  /** Empties the store and loads the seed again (the admin API's reset). */
  reset?: () => Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, from the Authorization header; null when there is none. */
    principal: Principal | null;
  }
}
