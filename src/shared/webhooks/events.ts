import { randomUUID } from 'node:crypto';

// The events the platform posts to a plugin's webhook URL: the emulator builds them, plugin authors receive them.
import {
  EVENT_KINDS,
  LIFECYCLE_EVENTS,
  type EventKind,
  type File,
  type LifecycleEventKind,
  type WebhookEventBodies,
  type WebhookEventDataMap,
} from '../contract/index.js';

export type { PluginInstance, Message, WebhookEventDataMap } from '../contract/index.js';

/** An uploaded file's record (the contract's), open because the platform may add fields. */
export type FileRecord = File & { [field: string]: unknown };

/** Every event kind the platform dispatches, in the spec's order (the contract's list). */
export const EVENT_TYPES = EVENT_KINDS;
export { LIFECYCLE_EVENTS };

/** The name of one event kind. */
export type WebhookEventType = EventKind;

/** A lifecycle event kind. */
export type LifecycleEventType = LifecycleEventKind;

/** Tells whether a string names a known event kind. */
export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

/**
 * The body of one delivery of an event of kind `T`: `id` is the same on every retry (drop duplicates by
 * it); `pluginInstanceId` is null only for WEBHOOK_CHALLENGE, which concerns the plugin.
 */
export type WebhookEventOf<T extends WebhookEventType> = WebhookEventBodies[T];

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
  pluginInstanceId: WebhookEventOf<T> extends { pluginInstanceId: infer P } ? P : never;
  orgId: string;
  data: WebhookEventDataMap[T];
}

/** What the untyped `createWebhookEvent` needs: any kind's fields, its data unchecked. */
export interface UntypedWebhookEventInit {
  id?: string;
  createdAt?: string | Date;
  pluginId: string;
  pluginInstanceId: string | null;
  orgId: string;
  data: unknown;
}

/** Builds a well-formed event envelope (for the emulator's dispatcher and for plugin authors' tests). */
export function createWebhookEvent<T extends WebhookEventType>(
  type: T,
  init: WebhookEventInit<T>,
): WebhookEventOf<T>;
/**
 * The same envelope for a kind and data known only at run time (the emulator's dispatcher emitting whatever a
 * route asked for): untyped in, the union of every event out; the data is taken as it is, unchecked. Only a
 * kind typed as any kind (`WebhookEventType`) takes it: a call naming one kind is still checked as above.
 */
export function createWebhookEvent<T extends WebhookEventType>(
  type: WebhookEventType extends T ? T : never,
  init: UntypedWebhookEventInit,
): WebhookEvent;
// One implementation for every kind: TypeScript cannot relate an object built for a generic kind
// to the union member of that kind, so the signatures above are the ones callers see.
export function createWebhookEvent(
  type: WebhookEventType,
  init: WebhookEventInit<WebhookEventType> | UntypedWebhookEventInit,
): object {
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
