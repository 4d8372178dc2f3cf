import type { FaultMark } from './events/faults.js';
import type { PluginInstance } from '../src/webhooks/events.js';
import type { Collection, Store } from './store/store.js';

/** Roles a user can hold in an org; VIEWER may read but not change. */
export type Role = 'OWNER' | 'MEMBER' | 'VIEWER';
export const ROLES: readonly Role[] = ['OWNER', 'MEMBER', 'VIEWER'];

export const PLUGIN_TYPES = ['EVENT_HANDLER', 'APP', 'DATA_PROVIDER'] as const;
export type PluginType = (typeof PLUGIN_TYPES)[number];

/** Event kinds the platform dispatches to plugins. */
export const EVENT_KINDS = [
  'WEBHOOK_CHALLENGE',
  'PLUGIN_INSTALLED',
  'PLUGIN_UNINSTALLED',
  'AGENT_MESSAGE_RECEIVED',
  'REPOSITORY_FILE_ADDED',
  'REPOSITORY_FILE_REMOVED',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Scopes an instance token can carry. */
export const SCOPES = ['AGENT_MESSAGE_WRITE', 'REPOSITORY_FILES_READ'] as const;
export type Scope = (typeof SCOPES)[number];

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

export interface PluginRecord extends Timestamps {
  id: string;
  orgId: string;
  name: string;
  description: string;
  type: PluginType;
  events: string[];
  scopes: string[];
  tags: string[];
  inputsSchema: Record<string, unknown>;
  isPublic: boolean;
  webhookUrl: string | null;
  webhookUrlIsVerified: boolean;
  webhookSecret: string;
  /** The secret before the last rotation, still signing deliveries until `previousWebhookSecretExpiresAt`; never shown. */
  previousWebhookSecret?: string | null;
  previousWebhookSecretExpiresAt?: string | null;
}

export interface ActionRecord extends Timestamps {
  id: string;
  pluginId: string;
  name: string;
  title: string;
  description: string;
  argsSchema?: Record<string, unknown>;
  returnSchema?: Record<string, unknown>;
}

export interface ExternalEventRecord extends Timestamps {
  id: string;
  pluginId: string;
  name: string;
  title: string;
  description: string;
  payloadSchema?: Record<string, unknown>;
}

export interface RepositoryRecord extends Timestamps {
  id: string;
  orgId: string;
  name: string;
  description: string;
}

export interface AgentRecord extends Timestamps {
  id: string;
  orgId: string;
  name: string;
}

export interface CharacterRecord extends Timestamps {
  id: string;
  orgId: string;
  agentId: string | null;
  name: string;
  persona?: string;
  engine?: 'scripted' | 'openai' | 'plugin';
  script?: Array<{ match: string; reply: string }>;
  fallbackReply?: string;
  packetSize?: number;
  packetIntervalMs?: number;
}

/** Message types: TEXT (text), IMAGE and AUDIO (content is the media's http(s) URL), FORM (content is a JSON object). */
export const MESSAGE_TYPES = ['TEXT', 'IMAGE', 'AUDIO', 'FORM'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** Attachment types a message may carry: IMAGE_URL (content is an http(s) image URL). */
export const ATTACHMENT_TYPES = ['IMAGE_URL'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

/** A conversation between a messaging client (an org's API key) and one character. */
export interface ConversationRecord extends Timestamps {
  id: string;
  characterId: string;
  /** The org of the character (and of the API keys that may reach it); not shown in responses. */
  orgId: string;
}

/** One message of a conversation; a streaming CHARACTER message's live content is kept in memory. */
export interface MessageRecord extends Timestamps {
  id: string;
  conversationId: string;
  sender: 'USER' | 'CHARACTER';
  type: MessageType;
  content: string;
  attachments: Array<{ type: AttachmentType; content: string }>;
  isStreaming: boolean;
  /** Set on a CHARACTER message whose reply failed; `content` also says why. */
  error?: { code: string; message: string };
}

/** Entities a plugin instance attaches to: repositories (data providers), agents (event handlers), apps. */
export const INSTANCE_ENTITY_TYPES = ['REPOSITORY', 'AGENT', 'APP'] as const;
export type InstanceEntityType = (typeof INSTANCE_ENTITY_TYPES)[number];

/**
 * An installed plugin: the fields of the spec's plugin instance table. The record is exactly what
 * plugins receive in PLUGIN_INSTALLED, so it is the webhooks library's type.
 */
export type InstanceRecord = PluginInstance;

/** pending: an attempt is due; delivered: a 2xx (a right challenge answer); failed: not retried; exhausted: every retry failed. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'exhausted';

/** One HTTP attempt of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  number: number;
  startedAt: string;
  url: string;
  /** The webhook-timestamp header sent (each attempt is signed anew). */
  webhookTimestamp: string;
  durationMs: number;
  responseStatus: number | null;
  /** The first 2 KB of the answer. */
  responseBody: string | null;
  error: string | null;
  /** When the next attempt is due; null when this was the last one. */
  nextAttemptAt: string | null;
}

/** One event sent to one plugin webhook, with every attempt (the delivery log). */
export interface DeliveryRecord extends Timestamps {
  id: string;
  /** The event's id: the webhook-id header on every attempt. */
  eventId: string;
  type: EventKind;
  pluginId: string;
  pluginInstanceId: string | null;
  orgId: string;
  url: string | null;
  /** The request body (the event), sent as JSON. */
  event: Record<string, unknown>;
  status: DeliveryStatus;
  mode: 'SYNC' | 'ASYNC';
  /** False for challenges, which are never retried. */
  retries: boolean;
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  /** The delivery this one repeats, for redeliveries. */
  redeliveryOf: string | null;
  /** The plugin's signing secret when the event was emitted; never shown. */
  secret: string;
  /** How fault injection changed this delivery's attempts; absent when it did not. */
  faults?: FaultMark[];
}

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

/** An uploaded (or awaited) file of the upload interface. */
export interface FileRecord extends Timestamps {
  id: string;
  fileName: string;
  contentType: string | null;
  fileSize: number | null;
  isPublic: boolean;
  /** null until the upload is reported. */
  status: 'UPLOADED' | 'FAILED' | 'PROCESSING' | 'COMPLETED' | null;
  errorMessage: string | null;
  parentId: string | null;
  parentType: 'ORG' | 'CHARACTER' | 'KNOWLEDGE' | 'AGENT' | null;
  folder: string | null;
  orgId: string;
  /** Where the object lives in storage (never shown). */
  storageKey: string;
}

/** A file held by a repository. */
export interface RepositoryFileRecord extends Timestamps {
  id: string;
  repositoryId: string;
  fileId: string;
}

/** Declares every collection with its indexes; called once when the store opens. */
export function defineCollections(store: Store): Db {
  return {
    users: store.define('users'),
    orgs: store.define('orgs'),
    memberships: store.define('memberships', ['orgId', 'userId']),
    tokens: store.define('tokens', ['hash', 'instanceId']),
    apiKeys: store.define('apiKeys', ['hash', 'orgId']),
    plugins: store.define('plugins', ['orgId', 'isPublic', 'tags', 'type']),
    actions: store.define('actions', ['pluginId']),
    externalEvents: store.define('externalEvents', ['pluginId']),
    repositories: store.define('repositories', ['orgId']),
    agents: store.define('agents', ['orgId']),
    characters: store.define('characters', ['orgId', 'agentId']),
    instances: store.define('instances', ['pluginId', 'entityId', 'orgId']),
    deliveries: store.define('deliveries', ['pluginId', 'status', 'type', 'pluginInstanceId']),
    conversations: store.define('conversations', ['characterId', 'orgId']),
    messages: store.define('messages', ['conversationId', 'isStreaming']),
    files: store.define('files', ['orgId', 'parentId']),
    repositoryFiles: store.define('repositoryFiles', ['repositoryId', 'fileId']),
  };
}
