import { randomUUID } from 'node:crypto';

// The events the platform posts to a plugin's webhook URL (DESIGN.md "Webhook delivery").
// The emulator builds these and plugin authors receive them, so both sides share one definition.

/** Every event kind the platform dispatches, in the spec's order. */
export const EVENT_TYPES = [
  'WEBHOOK_CHALLENGE',
  'PLUGIN_INSTALLED',
  'PLUGIN_UNINSTALLED',
  'AGENT_MESSAGE_RECEIVED',
  'REPOSITORY_FILE_ADDED',
  'REPOSITORY_FILE_REMOVED',
] as const;

/** The name of one event kind. */
export type WebhookEventType = (typeof EVENT_TYPES)[number];

/** Events about the plugin's own life (verification, install, uninstall) rather than activity on an entity. */
export const LIFECYCLE_EVENTS = ['WEBHOOK_CHALLENGE', 'PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED'] as const;

/** A lifecycle event kind. */
export type LifecycleEventType = (typeof LIFECYCLE_EVENTS)[number];

/** Tells whether a string names a known event kind. */
export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** A plugin installed on an agent, a repository (data provider) or an app. */
export interface PluginInstance {
  id: string;
  /** Present when the instance is attached to an agent. */
  agentId?: string;
  entityId: string;
  entityType: 'REPOSITORY' | 'AGENT' | 'APP';
  /** Null when unset; stored as given otherwise. */
  eventDispatchCondition: unknown;
  eventDispatchMode: 'SYNC' | 'ASYNC';
  events: string[];
  inputs: Record<string, unknown>;
  name: string;
  orgId: string;
  pluginId: string;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}

/** An uploaded file's record; open because the platform may add fields. */
export interface FileRecord {
  id: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  isPublic: boolean;
  status: 'UPLOADED' | 'FAILED' | 'PROCESSING' | 'COMPLETED' | null;
  errorMessage: string | null;
  parentId: string | null;
  parentType: string | null;
  folder: string | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** A message in a conversation between a user and a character. */
export interface Message {
  id: string;
  conversationId: string;
  sender: 'USER' | 'CHARACTER';
  type: string;
  content: string;
  attachments: unknown[];
  isStreaming: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The `data` of each event kind. */
export interface WebhookEventDataMap {
  WEBHOOK_CHALLENGE: { challenge: string };
  PLUGIN_INSTALLED: { instance: PluginInstance; accessToken: string };
  PLUGIN_UNINSTALLED: { instance: PluginInstance };
  AGENT_MESSAGE_RECEIVED: { agentId: string; characterId: string; conversationId: string; message: Message };
  REPOSITORY_FILE_ADDED: { repositoryId: string; file: FileRecord };
  REPOSITORY_FILE_REMOVED: { repositoryId: string; file: FileRecord };
}

/** The body of one delivery of an event of kind `T`. */
export interface WebhookEventOf<T extends WebhookEventType> {
  /** The same on every retry of one delivery; use it to drop duplicates. */
  id: string;
  type: T;
  /** ISO 8601 timestamp of when the event happened. */
  createdAt: string;
  pluginId: string;
  /** Null for WEBHOOK_CHALLENGE, which concerns the plugin rather than an instance. */
  pluginInstanceId: T extends 'WEBHOOK_CHALLENGE' ? null : string;
  orgId: string;
  data: WebhookEventDataMap[T];
}

/** Any event the platform posts; switch on `type` to narrow `data`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

export type WebhookChallengeEvent = WebhookEventOf<'WEBHOOK_CHALLENGE'>;
export type PluginInstalledEvent = WebhookEventOf<'PLUGIN_INSTALLED'>;
export type PluginUninstalledEvent = WebhookEventOf<'PLUGIN_UNINSTALLED'>;
export type AgentMessageReceivedEvent = WebhookEventOf<'AGENT_MESSAGE_RECEIVED'>;
export type RepositoryFileAddedEvent = WebhookEventOf<'REPOSITORY_FILE_ADDED'>;
export type RepositoryFileRemovedEvent = WebhookEventOf<'REPOSITORY_FILE_REMOVED'>;

/** What `createWebhookEvent` needs besides the kind; `id` and `createdAt` default to fresh values. */
export interface WebhookEventInit<T extends WebhookEventType> {
  id?: string;
  createdAt?: string | Date;
  pluginId: string;
  pluginInstanceId: WebhookEventOf<T>['pluginInstanceId'];
  orgId: string;
  data: WebhookEventDataMap[T];
}

/** Builds a well-formed event envelope (for the emulator's dispatcher and for plugin authors' tests). */
export function createWebhookEvent<T extends WebhookEventType>(type: T, init: WebhookEventInit<T>): WebhookEventOf<T> {
  const createdAt = init.createdAt ?? new Date();
  return {
    id: init.id ?? `evt_${randomUUID().replaceAll('-', '')}`,
    type,
    createdAt: typeof createdAt === 'string' ? createdAt : createdAt.toISOString(),
    pluginId: init.pluginId,
    pluginInstanceId: init.pluginInstanceId,
    orgId: init.orgId,
    data: init.data,
  };
}
