import type { Static } from '@sinclair/typebox';
import { StringEnum } from './schema.js';
import { EVENT_KINDS, PLUGIN_TYPES } from './lists.js';

// Every enum of the wire format, once. Schemas and TypeScript unions both come from these lists.

export { EVENT_KINDS, PLUGIN_TYPES };
export const PluginTypeSchema = StringEnum(PLUGIN_TYPES, { description: 'What the plugin is for' });
export type PluginType = Static<typeof PluginTypeSchema>;

export const EventKindSchema = StringEnum(EVENT_KINDS);
export type EventKind = Static<typeof EventKindSchema>;

/** Events about a plugin's own life (verification, install, uninstall) rather than activity on an entity. */
export const LIFECYCLE_EVENTS = ['WEBHOOK_CHALLENGE', 'PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED'] as const;
export type LifecycleEventKind = (typeof LIFECYCLE_EVENTS)[number];

/** Scopes an instance token can carry. */
export const SCOPES = ['AGENT_MESSAGE_WRITE', 'REPOSITORY_FILES_READ'] as const;
export const ScopeSchema = StringEnum(SCOPES);
export type Scope = Static<typeof ScopeSchema>;

/** Roles a user can hold in an org; VIEWER may read but not change. */
export const ROLES = ['OWNER', 'MEMBER', 'VIEWER'] as const;
export const RoleSchema = StringEnum(ROLES);
export type Role = Static<typeof RoleSchema>;

/** Upload statuses; a new file record has status null (awaiting upload). */
export const FILE_STATUSES = ['UPLOADED', 'FAILED', 'PROCESSING', 'COMPLETED'] as const;
export const FileStatusSchema = StringEnum(FILE_STATUSES);
export type FileStatus = Static<typeof FileStatusSchema>;

/** What an uploaded file may belong to. */
export const PARENT_TYPES = ['ORG', 'CHARACTER', 'KNOWLEDGE', 'AGENT'] as const;
export const ParentTypeSchema = StringEnum(PARENT_TYPES);
export type ParentType = Static<typeof ParentTypeSchema>;

/** Entities a plugin instance attaches to: repositories (data providers), agents (event handlers), apps. */
export const INSTANCE_ENTITY_TYPES = ['REPOSITORY', 'AGENT', 'APP'] as const;
export const InstanceEntityTypeSchema = StringEnum(INSTANCE_ENTITY_TYPES);
export type InstanceEntityType = Static<typeof InstanceEntityTypeSchema>;

/** SYNC: the triggering action waits for the first delivery attempt; ASYNC (default) queues it. */
export const DISPATCH_MODES = ['SYNC', 'ASYNC'] as const;
export const DispatchModeSchema = StringEnum(DISPATCH_MODES);
export type DispatchMode = Static<typeof DispatchModeSchema>;

/** Message types: TEXT, IMAGE and AUDIO (content is the media's http(s) URL), FORM (content is a JSON object). */
export const MESSAGE_TYPES = ['TEXT', 'IMAGE', 'AUDIO', 'FORM'] as const;
export const MessageTypeSchema = StringEnum(MESSAGE_TYPES);
export type MessageType = Static<typeof MessageTypeSchema>;

/** Attachment types a message may carry: IMAGE_URL (content is an http(s) image URL). */
export const ATTACHMENT_TYPES = ['IMAGE_URL'] as const;
export const AttachmentTypeSchema = StringEnum(ATTACHMENT_TYPES);
export type AttachmentType = Static<typeof AttachmentTypeSchema>;

/** Who wrote a message. */
export const SENDERS = ['USER', 'CHARACTER'] as const;
export const SenderSchema = StringEnum(SENDERS);
export type Sender = Static<typeof SenderSchema>;

/** pending: an attempt is due; delivered: a 2xx; failed: not retried; exhausted: every retry failed. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const;
export const DeliveryStatusSchema = StringEnum(DELIVERY_STATUSES);
export type DeliveryStatus = Static<typeof DeliveryStatusSchema>;

/** Reply engines of the emulator's characters. */
export const CHARACTER_ENGINES = ['scripted', 'openai', 'plugin'] as const;
export const CharacterEngineSchema = StringEnum(CHARACTER_ENGINES);
export type CharacterEngine = Static<typeof CharacterEngineSchema>;
