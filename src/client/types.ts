// Records as the client sees them. Each names the fields the spec (or DESIGN.md) names and
// keeps whatever else the server sends: the remote platform may return more than the emulator.

/** Index pagination, as in the spec's shared query system. */
export interface IndexPagination {
  type: 'index';
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
  [key: string]: unknown;
}

/** Cursor pagination: `nextCursor` is the id to pass as `cursor` for the next page. */
export interface CursorPagination {
  type: 'cursor';
  limit: number;
  hasNext: boolean;
  nextCursor: string | null;
  [key: string]: unknown;
}

export type Pagination = IndexPagination | CursorPagination;

/** The envelope's `meta`. */
export interface Meta {
  pagination?: Pagination;
  [key: string]: unknown;
}

/** What every list method returns. `pagination` is absent when the server sends none. */
export interface Page<T> {
  data: T[];
  pagination?: Pagination;
  meta?: Meta;
}

type Open = { [key: string]: unknown };

export type PluginType = 'EVENT_HANDLER' | 'APP' | 'DATA_PROVIDER' | (string & {});
export type FileStatus = 'UPLOADED' | 'FAILED' | 'PROCESSING' | 'COMPLETED' | (string & {});
export type ParentType = 'ORG' | 'CHARACTER' | 'KNOWLEDGE' | 'AGENT' | (string & {});
export type JsonSchema = Record<string, unknown>;

export interface TokenCreate extends Open {
  name: string;
  orgId?: string;
}

/** `data` of POST /api/tokens: the secret is at `token`. */
export interface Token extends Open {
  token: string;
  name?: string;
  orgId?: string | null;
}

export interface PluginCreate extends Open {
  name: string;
  description?: string;
  events?: string[];
  inputsSchema?: JsonSchema;
  isPublic?: boolean;
  orgId?: string;
  scopes?: string[];
  tags?: string[];
  type: PluginType;
  webhookUrl?: string;
}

export type PluginUpdate = Partial<PluginCreate>;

export interface Plugin extends Open {
  id: string;
  name: string;
  description?: string;
  events?: string[];
  inputsSchema?: JsonSchema;
  isPublic?: boolean;
  orgId?: string;
  scopes?: string[];
  tags?: string[];
  type?: PluginType;
  webhookUrl?: string | null;
  webhookUrlIsVerified?: boolean;
  /** `whsec_…`; shown to MEMBER and OWNER of the owning org only. */
  webhookSecret?: string;
  createdAt?: string;
  updatedAt?: string;
}

/** `data` of POST /api/plugins/:id/verify-webhook. */
export interface WebhookVerification extends Open {
  verified: boolean;
  reason?: string;
}

/** A rotated webhook secret: the new one, and until when the previous one still signs (null: no longer). */
export interface WebhookSecretRotation extends Open {
  id: string;
  webhookSecret: string;
  previousSecretExpiresAt: string | null;
}

export interface ActionCreate extends Open {
  name: string;
  title?: string;
  description?: string;
  argsSchema?: JsonSchema;
  returnSchema?: JsonSchema;
}

export type ActionUpdate = Partial<ActionCreate>;

export interface Action extends Open {
  name: string;
  title?: string;
  description?: string;
  argsSchema?: JsonSchema;
  returnSchema?: JsonSchema;
}

export interface ExternalEventCreate extends Open {
  name: string;
  title?: string;
  description?: string;
  payloadSchema?: JsonSchema;
}

export type ExternalEventUpdate = Partial<ExternalEventCreate>;

export interface ExternalEvent extends Open {
  name: string;
  title?: string;
  description?: string;
  payloadSchema?: JsonSchema;
}

export interface RepositoryCreate extends Open {
  name: string;
  description?: string;
  orgId?: string;
}

export interface Repository extends Open {
  id: string;
  name: string;
  description?: string;
  orgId?: string;
}

/** Body that installs a plugin instance on a repository, agent or app. */
export interface InstanceCreate extends Open {
  name: string;
  pluginId: string;
  events: string[];
  scopes: string[];
  inputs?: Record<string, unknown>;
  eventDispatchMode?: string;
  eventDispatchCondition?: unknown;
}

export interface PluginInstance extends Open {
  id: string;
  pluginId: string;
  name?: string;
  agentId?: string;
  entityId?: string;
  entityType?: string;
  eventDispatchCondition?: unknown;
  eventDispatchMode?: string;
  events?: string[];
  inputs?: Record<string, unknown>;
  orgId?: string;
  scopes?: string[];
  createdAt?: string;
  updatedAt?: string;
}

export interface FileRecord extends Open {
  id: string;
  fileName: string;
  contentType?: string;
  fileSize?: number;
  isPublic?: boolean;
  status?: FileStatus | null;
  errorMessage?: string;
  parentId?: string;
  parentType?: ParentType;
  folder?: string;
}

/** One file asked for in `generateUploadUrls`. */
export interface UploadFileSpec extends Open {
  fileName: string;
  contentType?: string;
  fileSize?: number;
  isPublic?: boolean;
}

export interface UploadUrlRequest extends Open {
  files: UploadFileSpec[];
  folder?: string;
  parentId?: string;
  parentType?: ParentType;
}

export interface UploadUrls extends Open {
  files: Array<{ signedUrl: string; fileRecord: FileRecord; [key: string]: unknown }>;
}

export interface FileStatusUpdate extends Open {
  fileId: string;
  status: FileStatus;
  errorMessage?: string;
}

/** `data` of GET /api/access/:fileId. */
export interface FileAccess extends Open {
  url?: string;
}

export interface Attachment extends Open {
  content: string;
  type: string;
}

export interface Conversation extends Open {
  id: string;
  characterId?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface MessageSend extends Open {
  content: string;
  type?: string;
  attachments?: Attachment[];
}

export interface Message extends Open {
  id: string;
  conversationId?: string;
  sender?: 'USER' | 'CHARACTER' | (string & {});
  type?: string;
  content: string;
  attachments?: Attachment[];
  isStreaming?: boolean;
  createdAt?: string;
  updatedAt?: string;
}

/** Body of an instance token's message into an agent's conversation. */
export interface AgentMessageWrite extends Open {
  content: string;
  isStreaming?: boolean;
  type?: string;
  attachments?: Attachment[];
}

/** `data` of a `CHARACTER_MESSAGE_SENT` event. */
export interface CharacterMessageSent extends Open {
  message: Message;
  contentDelta?: string;
}

/** A webhook delivery in the emulator's log. */
export interface Delivery extends Open {
  id: string;
}

/** A character as the emulator's admin API lists it. */
export interface Character extends Open {
  id: string;
  name?: string;
}
