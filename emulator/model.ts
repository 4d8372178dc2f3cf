import type {
  Action,
  Agent,
  ApiKey,
  Character,
  Delivery,
  Conversation,
  ExternalEvent,
  File,
  Message,
  Plugin,
  PluginInstance,
  Repository,
  Role,
  TokenMetadata,
} from '#contract';
import type { Store } from './store/store.js';

// The emulator's enums are the contract's (test/contract/enums.test.ts holds them to it).
export {
  PLUGIN_TYPES,
  EVENT_KINDS,
  type Role,
  type PluginType,
  type EventKind,
  type Scope,
  type MessageType,
  type InstanceEntityType,
  type DeliveryStatus,
  type DeliveryAttempt,
} from '#contract';

export interface Timestamps {
  createdAt: string;
  updatedAt: string;
}

export interface UserRecord extends Timestamps {
  id: string;
  name: string;
}

export interface OrgRecord extends Timestamps {
  id: string;
  name: string;
}

export interface MembershipRecord extends Timestamps {
  id: string;
  orgId: string;
  userId: string;
  role: Role;
}

/** A stored user or installation token: its metadata as the admin API lists it, and the SHA-256 of the secret (never the secret). */
export type TokenRecord = TokenMetadata & { hash: string };

/** A stored messaging API key: the contract's ApiKey without the key, and the key's SHA-256. */
export type ApiKeyRecord = Omit<ApiKey, 'key'> & { hash: string };

/** A stored plugin: its signing secret always kept, and the previous one, signing until `previousWebhookSecretExpiresAt` (never shown). */
export type PluginRecord = Omit<Plugin, 'webhookSecret'> & {
  webhookSecret: string;
  previousWebhookSecret?: string | null;
  previousWebhookSecretExpiresAt?: string | null;
};

// Stored as the contract's resources are answered.
export type RepositoryRecord = Repository;
export type AgentRecord = Agent;
export type CharacterRecord = Character;
export type MessageRecord = Message;
/** An installed plugin, exactly as plugins receive it in PLUGIN_INSTALLED. */
export type InstanceRecord = PluginInstance;

/** A conversation: the contract's, and the org of its character (whose API keys may reach it), never shown. */
export type ConversationRecord = Conversation & { orgId: string };

/** One event sent to one plugin webhook, with every attempt (the delivery log): the contract's Delivery, and the plugin's signing secret when the event was emitted (never shown). */
export type DeliveryRecord = Delivery & { secret: string };

/** An uploaded (or awaited) file of the upload interface: the contract's File, and where the object lives in storage (never shown). */
export type FileRecord = File & { storageKey: string };

/** A file held by a repository. */
/** Who added a file to a repository: a user's token, or a plugin instance's installation access token. */
export type RepositoryFileAdder =
  | { kind: 'user'; userId: string }
  | { kind: 'instance'; instanceId: string };

export interface RepositoryFileRecord extends Timestamps {
  id: string;
  repositoryId: string;
  fileId: string;
  /** Absent on a link imported from an export made before it was recorded. */
  addedBy?: RepositoryFileAdder;
}

/** Declares every collection; a field is indexed only where the code looks records up by it (every other filter scans). */
export function defineCollections(store: Store) {
  return {
    users: store.define<UserRecord>('users'),
    orgs: store.define<OrgRecord>('orgs'),
    memberships: store.define<MembershipRecord>('memberships', ['userId']),
    tokens: store.define<TokenRecord>('tokens', ['hash', 'instanceId']),
    apiKeys: store.define<ApiKeyRecord>('apiKeys', ['hash']),
    plugins: store.define<PluginRecord>('plugins', ['orgId']),
    actions: store.define<Action>('actions', ['pluginId']),
    externalEvents: store.define<ExternalEvent>('externalEvents', ['pluginId']),
    repositories: store.define<RepositoryRecord>('repositories', ['orgId']),
    agents: store.define<AgentRecord>('agents'),
    characters: store.define<CharacterRecord>('characters'),
    instances: store.define<InstanceRecord>('instances', ['pluginId', 'entityId']),
    // By event id too: a redelivery is another delivery of the same event (plugin-output/service.ts).
    deliveries: store.define<DeliveryRecord>('deliveries', ['status', 'eventId']),
    conversations: store.define<ConversationRecord>('conversations'),
    messages: store.define<MessageRecord>('messages', ['conversationId', 'isStreaming']),
    files: store.define<FileRecord>('files', ['orgId']),
    repositoryFiles: store.define<RepositoryFileRecord>('repositoryFiles', ['repositoryId']),
  };
}

/** The typed collections of the emulator's store. */
export type Db = ReturnType<typeof defineCollections>;
