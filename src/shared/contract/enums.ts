import type { Static } from '@sinclair/typebox';
import { StringEnum } from './schema.js';
import * as values from './enum-values.js';

export * from './enum-values.js';

// Every wire enum as a schema and a TypeScript union, from the lists (and their meanings) in enum-values.ts.

export const PluginTypeSchema = StringEnum(values.PLUGIN_TYPES, {
  description: 'What the plugin is for',
});
export type PluginType = Static<typeof PluginTypeSchema>;

export const EventKindSchema = StringEnum(values.EVENT_KINDS);
export type EventKind = Static<typeof EventKindSchema>;

export type LifecycleEventKind = (typeof values.LIFECYCLE_EVENTS)[number];

export const ScopeSchema = StringEnum(values.SCOPES);
export type Scope = Static<typeof ScopeSchema>;

export const RoleSchema = StringEnum(values.ROLES);
export type Role = Static<typeof RoleSchema>;

export const FileStatusSchema = StringEnum(values.FILE_STATUSES);
export type FileStatus = Static<typeof FileStatusSchema>;

export const ParentTypeSchema = StringEnum(values.PARENT_TYPES);
export type ParentType = Static<typeof ParentTypeSchema>;

export const InstanceEntityTypeSchema = StringEnum(values.INSTANCE_ENTITY_TYPES);
export type InstanceEntityType = Static<typeof InstanceEntityTypeSchema>;

export const DispatchModeSchema = StringEnum(values.DISPATCH_MODES);
export type DispatchMode = Static<typeof DispatchModeSchema>;

export const MessageTypeSchema = StringEnum(values.MESSAGE_TYPES);
export type MessageType = Static<typeof MessageTypeSchema>;

export const AttachmentTypeSchema = StringEnum(values.ATTACHMENT_TYPES);

export const SenderSchema = StringEnum(values.SENDERS);
export type Sender = Static<typeof SenderSchema>;

export const DeliveryStatusSchema = StringEnum(values.DELIVERY_STATUSES);
export type DeliveryStatus = Static<typeof DeliveryStatusSchema>;

export const CharacterEngineSchema = StringEnum(values.CHARACTER_ENGINES);
