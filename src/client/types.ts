// Records as the client sees them: the contract's, open to whatever else a remote platform sends.

import type * as C from '#contract';

export type { IndexPagination, CursorPagination, Pagination } from '#contract';

/** The envelope's `meta`. */
export interface Meta {
  pagination?: C.Pagination;
  [key: string]: unknown;
}

/** What every list method returns. `pagination` is absent when the server sends none. */
export interface Page<T> {
  data: T[];
  pagination?: C.Pagination;
  meta?: Meta;
}

type Open = { [key: string]: unknown };

// Enums are the contract's, widened to any string: a remote platform may know more values.
export type PluginType = C.PluginType | (string & {});
export type FileStatus = C.FileStatus | (string & {});
export type ParentType = C.ParentType | (string & {});
export type JsonSchema = Record<string, unknown>;

/** An enum value widened to any string (deeply in arrays): a remote platform may know more values, and the server validates. */
type Widen<T> = T extends string
  ? string
  : T extends ReadonlyArray<infer U>
    ? Array<Widen<U>>
    : T extends object
      ? Loose<T>
      : T;
/** A contract request body whose enum fields take any string. */
export type Loose<T> = { [K in keyof T]: Widen<T[K]> };

export type TokenCreate = Loose<C.TokenCreate>;
/** `data` of POST /api/tokens: the secret is at `token`. */
export type Token = C.CreatedToken & Open;

/** Body of createPlugin: `orgId` is taken out of the body for the org-path route. */
export type PluginCreate = Loose<C.PluginCreate> & { orgId?: string };
export type PluginUpdate = Loose<C.PluginUpdate>;
export type Plugin = C.Plugin & Open;

/** `data` of POST /api/plugins/:id/verify-webhook. */
export type WebhookVerification = C.WebhookVerification & Open;

/** A rotated webhook secret: the new one, and until when the previous one still signs (null: no longer). */
export type WebhookSecretRotation = C.WebhookSecretRotation & Open;

export type ActionCreate = Loose<C.ActionCreate>;
export type ActionUpdate = Loose<C.ActionUpdate>;
export type Action = C.Action & Open;

export type ExternalEventCreate = Loose<C.ExternalEventCreate>;
export type ExternalEventUpdate = Loose<C.ExternalEventUpdate>;
export type ExternalEvent = C.ExternalEvent & Open;

export type RepositoryCreate = Loose<C.RepositoryCreate> & { orgId?: string };
export type Repository = C.Repository & Open;

/** Body that installs a plugin instance on a repository, agent or app. */
export type InstanceCreate = Loose<C.InstanceCreate>;
export type PluginInstance = C.PluginInstance & Open;

export type FileRecord = C.File & Open;
/** A file a repository holds; `addedAt` and `addedBy` are the emulator's extensions (a platform may leave them out). */
export type RepositoryFileRecord = FileRecord &
  Partial<Pick<C.RepositoryFile, 'addedAt' | 'addedBy'>>;
/** One file asked for in `generateUploadUrls`. */
export type UploadFileSpec = Loose<C.UploadFileSpec>;
export type UploadUrlRequest = Loose<C.UploadUrlRequest>;
export type UploadUrls = C.UploadUrls & Open;
export type FileStatusUpdate = Loose<C.FileStatusUpdate>;
/** `data` of GET /api/access/:fileId. */
export type FileAccess = C.FileAccess & Open;

export type Attachment = C.Attachment;
export type Conversation = C.Conversation & Open;
export type MessageSend = Loose<C.MessageSend>;
export type Message = C.Message & Open;
/** Body of an instance token's message into an agent's conversation. */
export type AgentMessageWrite = Loose<C.AgentMessageWrite>;

/** `data` of a `CHARACTER_MESSAGE_SENT` event. */
export type CharacterMessageSent = C.CharacterMessageSent & Open;

/** A webhook delivery in the emulator's log. */
export type Delivery = C.Delivery & Open;
/** `data` of POST /_emulator/deliveries/redeliver: how many were resent, how many matches were not (challenges), the new ids. */
export type BulkRedeliveryResult = C.BulkRedeliveryResult & Open;

/** A character as the emulator's admin API lists it. */
export type Character = C.Character & Open;
