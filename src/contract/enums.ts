import type { Static } from '@sinclair/typebox';
import { StringEnum } from './schema.js';
import {
  PLUGIN_TYPES,
  EVENT_KINDS,
  LIFECYCLE_EVENTS,
  SCOPES,
  ROLES,
  FILE_STATUSES,
  PARENT_TYPES,
  INSTANCE_ENTITY_TYPES,
  DISPATCH_MODES,
  MESSAGE_TYPES,
  ATTACHMENT_TYPES,
  SENDERS,
  DELIVERY_STATUSES,
  CHARACTER_ENGINES,
} from './enum-values.js';

export * from './enum-values.js';

// Every enum of the wire format, once. Schemas and TypeScript unions both come from these lists.

/** Plugin types: event handlers attach to agents, data providers to repositories, apps to apps. */
export const PluginTypeSchema = StringEnum(PLUGIN_TYPES, { description: 'What the plugin is for' });
export type PluginType = Static<typeof PluginTypeSchema>;

/** Every event kind the platform dispatches to plugins, in the spec's order. */
export const EventKindSchema = StringEnum(EVENT_KINDS);
export type EventKind = Static<typeof EventKindSchema>;

/** Events about a plugin's own life (verification, install, uninstall) rather than activity on an entity. */
export type LifecycleEventKind = (typeof LIFECYCLE_EVENTS)[number];

/** Scopes an instance token can carry. */
export const ScopeSchema = StringEnum(SCOPES);
export type Scope = Static<typeof ScopeSchema>;

/** Roles a user can hold in an org; VIEWER may read but not change. */
export const RoleSchema = StringEnum(ROLES);
export type Role = Static<typeof RoleSchema>;

/** Upload statuses; a new file record has status null (awaiting upload). */
export const FileStatusSchema = StringEnum(FILE_STATUSES);
export type FileStatus = Static<typeof FileStatusSchema>;

/** What an uploaded file may belong to. */
export const ParentTypeSchema = StringEnum(PARENT_TYPES);
export type ParentType = Static<typeof ParentTypeSchema>;

/** Entities a plugin instance attaches to: repositories (data providers), agents (event handlers), apps. */
export const InstanceEntityTypeSchema = StringEnum(INSTANCE_ENTITY_TYPES);
export type InstanceEntityType = Static<typeof InstanceEntityTypeSchema>;

/** SYNC: the triggering action waits for the first delivery attempt; ASYNC (default) queues it. */
export const DispatchModeSchema = StringEnum(DISPATCH_MODES);
export type DispatchMode = Static<typeof DispatchModeSchema>;

/** Message types: TEXT, IMAGE and AUDIO (content is the media's http(s) URL), FORM (content is a JSON object). */
export const MessageTypeSchema = StringEnum(MESSAGE_TYPES);
export type MessageType = Static<typeof MessageTypeSchema>;

/** Attachment types a message may carry: IMAGE_URL (content is an http(s) image URL). */
export const AttachmentTypeSchema = StringEnum(ATTACHMENT_TYPES);
export type AttachmentType = Static<typeof AttachmentTypeSchema>;

/** Who wrote a message. */
export const SenderSchema = StringEnum(SENDERS);
export type Sender = Static<typeof SenderSchema>;

/** pending: an attempt is due; delivered: a 2xx; failed: not retried; exhausted: every retry failed. */
export const DeliveryStatusSchema = StringEnum(DELIVERY_STATUSES);
export type DeliveryStatus = Static<typeof DeliveryStatusSchema>;

/** Reply engines of the emulator's characters. */
export const CharacterEngineSchema = StringEnum(CHARACTER_ENGINES);
export type CharacterEngine = Static<typeof CharacterEngineSchema>;
