// Every wire enum's values as plain lists, without TypeBox; enums.ts builds schemas and types from them. Budget: `plugsmith --help` <= 250 ms (the command registry reads these; TypeBox and the contract: ~63 ms CPU more).

/** Plugin types: event handlers attach to agents, data providers to repositories, apps to apps. */
export const PLUGIN_TYPES = ['EVENT_HANDLER', 'APP', 'DATA_PROVIDER'] as const;

/** Every event kind the platform dispatches to plugins, in the spec's order. */
export const EVENT_KINDS = [
  'WEBHOOK_CHALLENGE',
  'PLUGIN_INSTALLED',
  'PLUGIN_UNINSTALLED',
  'AGENT_MESSAGE_RECEIVED',
  'REPOSITORY_FILE_ADDED',
  'REPOSITORY_FILE_REMOVED',
] as const;

/** Events about a plugin's own life (verification, install, uninstall) rather than activity on an entity. */
export const LIFECYCLE_EVENTS = [
  'WEBHOOK_CHALLENGE',
  'PLUGIN_INSTALLED',
  'PLUGIN_UNINSTALLED',
] as const;

/** Scopes an instance token can carry. */
export const SCOPES = ['AGENT_MESSAGE_WRITE', 'REPOSITORY_FILES_READ'] as const;

/** Roles a user can hold in an org; VIEWER may read but not change. */
export const ROLES = ['OWNER', 'MEMBER', 'VIEWER'] as const;

/** Upload statuses; a new file record has status null (awaiting upload). */
export const FILE_STATUSES = ['UPLOADED', 'FAILED', 'PROCESSING', 'COMPLETED'] as const;

/** What an uploaded file may belong to. */
export const PARENT_TYPES = ['ORG', 'CHARACTER', 'KNOWLEDGE', 'AGENT'] as const;

/** Entities a plugin instance attaches to: repositories (data providers), agents (event handlers), apps. */
export const INSTANCE_ENTITY_TYPES = ['REPOSITORY', 'AGENT', 'APP'] as const;

/** SYNC: the triggering action waits for the first delivery attempt; ASYNC (default) queues it. */
export const DISPATCH_MODES = ['SYNC', 'ASYNC'] as const;

/** Message types: TEXT, IMAGE and AUDIO (content is the media's http(s) URL), FORM (content is a JSON object). */
export const MESSAGE_TYPES = ['TEXT', 'IMAGE', 'AUDIO', 'FORM'] as const;

/** Attachment types a message may carry: IMAGE_URL (content is an http(s) image URL). */
export const ATTACHMENT_TYPES = ['IMAGE_URL'] as const;

/** Who wrote a message. */
export const SENDERS = ['USER', 'CHARACTER'] as const;

/** pending: an attempt is due; delivered: a 2xx; failed: not retried; exhausted: every retry failed. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const;

/** Reply engines of the emulator's characters. */
export const CHARACTER_ENGINES = ['scripted', 'openai', 'plugin'] as const;

/** Sort orders of the query system's `@sortOrder`. */
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** The delivery log's `@httpStatus` filter (statuses, classes such as 5xx, or none); here as the CLI checks it too (`--http-status`). */
export const HTTP_STATUS_FILTER_PATTERN =
  '^(?:[1-5][0-9][0-9]|[1-5]xx|none)(?:,(?:[1-5][0-9][0-9]|[1-5]xx|none))*$';

/** The error types of both APIs and the HTTP status of each (docs/emulator-behaviour.md, "Envelope and errors"). */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** A request body that arrived too slowly, or stopped (the connection closes). */
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A bound of one credential was reached (open conversation streams of an API key); the message names it. */
  TOO_MANY_REQUESTS: 429,
  SERVER_ERROR: 500,
  /** The emulator's disk is full (ENOSPC) or over quota: nothing was stored; free space and retry. */
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;
export const ERROR_TYPES = Object.keys(ERROR_STATUS) as ErrorType[];

/** The error type of each status of the table (the inverse of ERROR_STATUS). */
export const ERROR_TYPE_BY_STATUS: Readonly<Record<number, ErrorType>> = Object.fromEntries(
  Object.entries(ERROR_STATUS).map(([type, status]) => [status, type as ErrorType]),
);
