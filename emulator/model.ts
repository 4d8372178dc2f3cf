import type { Action, Agent, Character, Delivery, Conversation, ExternalEvent, File, Message, Plugin, PluginInstance, Repository } from '../src/contract/index.js';
import type { Collection, Store } from './store/store.js';

export {
  ROLES,
  PLUGIN_TYPES,
  EVENT_KINDS,
  SCOPES,
  MESSAGE_TYPES,
  ATTACHMENT_TYPES,
  INSTANCE_ENTITY_TYPES,
  type Role,
  type PluginType,
  type EventKind,
  type Scope,
  type MessageType,
  type AttachmentType,
  type InstanceEntityType,
  type DeliveryStatus,
} from '../src/contract/index.js';
import type { Role } from '../src/contract/index.js';
export type { DeliveryAttempt } from '../src/contract/index.js';

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

/** A stored credential: only the SHA-256 of the secret is kept. */
export interface TokenRecord extends Timestamps {
  id: string;
  kind: 'user' | 'instance';
  hash: string;
  name: string;
  /** Last characters of the secret, to tell tokens apart in listings. */
  hint: string;
  userId: string | null;
  orgId: string | null;
  instanceId: string | null;
  revokedAt: string | null;
}

export interface ApiKeyRecord extends Timestamps {
  id: string;
  hash: string;
  hint: string;
  orgId: string;
  name: string;
}

/**
 * A stored plugin: the contract's Plugin, whose signing secret is always kept, and the secret before
 * the last rotation, still signing deliveries until `previousWebhookSecretExpiresAt` (never shown).
 */
export type PluginRecord = Omit<Plugin, 'webhookSecret'> & {
  webhookSecret: string;
  previousWebhookSecret?: string | null;
  previousWebhookSecretExpiresAt?: string | null;
};

/** A stored action: the contract's Action, as answered. */
export type ActionRecord = Action;

/** A stored external event: the contract's ExternalEvent, as answered. */
export type ExternalEventRecord = ExternalEvent;

/** A stored repository: the contract's Repository. */
export type RepositoryRecord = Repository;

/** A stored agent: the contract's Agent. */
export type AgentRecord = Agent;

/** A stored character: the contract's Character. */
export type CharacterRecord = Character;

/** A conversation between a messaging client (an org's API key) and one character: the contract's, and the org of the character (and of the API keys that may reach it), not shown in responses. */
export type ConversationRecord = Conversation & { orgId: string };

/** One message of a conversation (the contract's); a streaming CHARACTER message's live content is kept in memory. */
export type MessageRecord = Message;

/**
 * An installed plugin: the fields of the spec's plugin instance table. The record is exactly what
 * plugins receive in PLUGIN_INSTALLED, so it is the webhooks library's type.
 */
export type InstanceRecord = PluginInstance;

/** One event sent to one plugin webhook, with every attempt (the delivery log): the contract's Delivery, and the plugin's signing secret when the event was emitted (never shown). */
export type DeliveryRecord = Delivery & { secret: string };

/** The typed collections of the emulator's store. */
export interface Db {
  users: Collection<UserRecord>;
  orgs: Collection<OrgRecord>;
  memberships: Collection<MembershipRecord>;
  tokens: Collection<TokenRecord>;
  apiKeys: Collection<ApiKeyRecord>;
  plugins: Collection<PluginRecord>;
  actions: Collection<ActionRecord>;
  externalEvents: Collection<ExternalEventRecord>;
  repositories: Collection<RepositoryRecord>;
  agents: Collection<AgentRecord>;
  characters: Collection<CharacterRecord>;
  conversations: Collection<ConversationRecord>;
  messages: Collection<MessageRecord>;
  instances: Collection<InstanceRecord>;
  deliveries: Collection<DeliveryRecord>;
  files: Collection<FileRecord>;
  repositoryFiles: Collection<RepositoryFileRecord>;
}

/** An uploaded (or awaited) file of the upload interface: the contract's File, and where the object lives in storage (never shown). */
export type FileRecord = File & { storageKey: string };

/** A file held by a repository. */
export interface RepositoryFileRecord extends Timestamps {
  id: string;
  repositoryId: string;
  fileId: string;
}

/**
 * Declares every collection with its indexes: a field is indexed only where the code looks records
 * up by it (`where`, or a list endpoint's scope); every other filter scans.
 */
export function defineCollections(store: Store): Db {
  return {
    users: store.define('users'),
    orgs: store.define('orgs'),
    memberships: store.define('memberships', ['userId']),
    tokens: store.define('tokens', ['hash', 'instanceId']),
    apiKeys: store.define('apiKeys', ['hash']),
    plugins: store.define('plugins', ['orgId']),
    actions: store.define('actions', ['pluginId']),
    externalEvents: store.define('externalEvents', ['pluginId']),
    repositories: store.define('repositories', ['orgId']),
    agents: store.define('agents'),
    characters: store.define('characters'),
    instances: store.define('instances', ['pluginId', 'entityId']),
    deliveries: store.define('deliveries', ['status']),
    conversations: store.define('conversations'),
    messages: store.define('messages', ['conversationId', 'isStreaming']),
    files: store.define('files', ['orgId']),
    repositoryFiles: store.define('repositoryFiles', ['repositoryId']),
  };
}
