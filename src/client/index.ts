// plugsmith/client: the typed HTTP client of the platform's management and messaging APIs.
export * from './client.js';
export { ApiError, NetworkError, isApiError, isNetworkError } from './errors.js';
export type { ApiErrorType, ErrorDetail } from './errors.js';
export type { CallOptions, SlowRequest, TraceEvent, ApiKind } from './transport.js';
export { serializeListQuery, toQueryString } from './query.js';
export type { ListQuery, FilterValue, QueryPairs } from './query.js';
export * from './paginate.js';
export * from '../shared/http/sse.js';
export { isCharacterMessageSent } from './resources/messaging.js';
export type { MessageListQuery, MessagingResource } from './resources/messaging.js';
export type { EventStream, EventsOptions } from './event-stream.js';
export type { UploadFileOptions, UploadResult, UploadSource } from './upload-file.js';
export type { FileListQuery, UploadsResource } from './resources/uploads.js';
export type {
  DeliveryFilters,
  DeliveryListQuery,
  DeliveryMatch,
  DeliveryStreamFilters,
  EmulatorAdminResource,
} from './resources/emulator-admin.js';
export type { TokensResource } from './resources/tokens.js';
export type { PluginsResource } from './resources/plugins.js';
export type { ActionsResource, ExternalEventsResource } from './resources/plugin-children.js';
export type { RepositoriesResource } from './resources/repositories.js';
export type {
  DataProvidersResource,
  EntityPluginsResource,
  InstancesResource,
} from './resources/instances.js';
export type { AgentMessagesResource } from './resources/agent-messages.js';
export { redactAuthorization, redactSecret, redactUrl } from './redact.js';
export { parseRetryAfter } from '#contract/retry-after';
export type * from './types.js';
