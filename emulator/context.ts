import type { Store } from './store/store.js';
import type { Db } from './model.js';
import type { Principal } from './auth/principal.js';
import type { SlowBodyBound, UnauthenticatedBodyBound } from './slow-body.js';
import type { ConnectionBound } from './connection-bound.js';
import type { Overview, Workspace } from '#contract';

/** The default workspace's credentials and ids, as the dashboard uses them (null where the seed has none). */
export type WorkspaceCredentials = Pick<
  Workspace,
  'token' | 'apiKey' | 'orgId' | 'userId' | 'agentId' | 'characterId'
>;

/** Settings of one running emulator. */
export interface EmulatorConfig {
  /** Base URL of the management API (known once listening). */
  publicUrl: () => string;
  /** Base URL of the messaging API (known once listening). */
  messagingUrl: () => string;
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
  unauthenticatedBodies?: UnauthenticatedBodyBound;
}

/** What every feature needs: the store and its collections. Each feature adds what else it needs in its own deps type. */
export interface StoreDeps {
  store: Store;
  db: Db;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, from the Authorization header; null when there is none. */
    principal: Principal | null;
  }
}
