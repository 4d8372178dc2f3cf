import type { Store } from './store/store.js';
import type { Db } from './model.js';
import type { Principal } from './auth/principal.js';
import type { EventDispatcher } from './events/dispatcher.js';
import type { ConversationService } from './messaging/conversation-service.js';
import type { ObjectStorage } from './storage/types.js';
import type { AdminAccess } from './admin/guard.js';

/** Settings of one running emulator. */
export interface EmulatorConfig {
  /** Base URL of the management API once listening (known after listen). */
  publicUrl: () => string;
  /** Base URL of the messaging API once listening. */
  messagingUrl: () => string;
  /** Who may call the admin surface (`/_emulator`): its credential, remote opt-in, bound host. */
  admin: AdminAccess;
  /** The store's stable id (see store/store-id.ts). */
  storeId: string;
  /** Check every JSON response against the OpenAPI document (openapi/contract-check.ts). */
  contractCheck: boolean;
}

/** The services routes call: storage, auth data, configuration. One per running emulator. */
export interface Services {
  store: Store;
  db: Db;
  config: EmulatorConfig;
  /** Webhook delivery: emit events to plugins, the delivery log, challenges. */
  events: EventDispatcher;
  /** Messaging: conversations, character replies in packets, event streams. */
  messaging: ConversationService;
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
