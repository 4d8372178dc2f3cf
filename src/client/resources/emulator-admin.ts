import type { Api } from '../api.js';
import { openEventStream, type EventsOptions } from '../event-stream.js';
import {
  segment as s,
  plainParams,
  serializeListQuery,
  type ListQuery,
  type QueryPairs,
} from '../query.js';
import type { CallOptions } from '../transport.js';
import type {
  Agent,
  ApiKey,
  DeliveryHold,
  DeliveryStreamQuery,
  EventEmit,
  FaultSettings,
  ImportResult,
  PluginOutputAccepted,
  PluginOutputLine,
  PluginOutputPage,
  ResetResult,
  ScenarioTag,
} from '#contract';
import type { BulkRedeliveryResult, Character, Delivery, Loose, PluginInstance } from '../types.js';

/** The delivery log's own filters (beyond the query system's): the dashboard's Deliveries filters, and what a bulk redelivery matches. */
export interface DeliveryFilters {
  /** Only deliveries with at least one attempt that failed (not 2xx, or no answer), whatever their status now. */
  failedOnce?: boolean;
  /** The last attempt's answer: statuses (`500`), classes (`5xx`) or `none` (no answer), comma-separated. */
  httpStatus?: string;
  minAttempts?: number;
  maxAttempts?: number;
  /** Created at or after this time (ISO 8601). */
  since?: string;
  /** Created before this time (ISO 8601). */
  until?: string;
}

/** Query of the delivery log. */
export interface DeliveryListQuery extends ListQuery, DeliveryFilters {
  pluginId?: string;
}

/** What a bulk redelivery resends: every delivery these match (challenges never). */
export interface DeliveryMatch extends DeliveryFilters {
  pluginId?: string;
  search?: string;
  /** Property filters of the log (`type`, `status`, `pluginInstanceId`…); a list of values matches any. */
  filters?: ListQuery['filters'];
}

/** The delivery filters as query parameters (`@failedOnce=true`, `@httpStatus=5xx`…). */
function filterParams(filters: DeliveryFilters): QueryPairs {
  return plainParams({
    '@failedOnce': filters.failedOnce ? 'true' : undefined,
    '@httpStatus': filters.httpStatus,
    '@minAttempts': filters.minAttempts,
    '@maxAttempts': filters.maxAttempts,
    '@since': filters.since,
    '@until': filters.until,
  });
}

/** Filters of the live delivery stream. */
export type DeliveryStreamFilters = Loose<DeliveryStreamQuery>;

/** The emulator's admin API under `/_emulator` (not part of the platform; only the emulator answers). */
export function emulatorAdminResource(api: Api) {
  return {
    /** GET /_emulator/health: 200 once the emulator serves. */
    health: (options?: CallOptions) =>
      api.data<Record<string, unknown>>('GET', '/_emulator/health', { options }),
    /** POST /_emulator/dashboard/login-links: a fresh single-use login link of the web dashboard. */
    dashboardLink: (options?: CallOptions) =>
      api.data<{ dashboardUrl: string }>('POST', '/_emulator/dashboard/login-links', { options }),
    /** GET /_emulator/export: every record of every collection. */
    export: (options?: CallOptions) =>
      api.data<Record<string, unknown>>('GET', '/_emulator/export', { options }),
    /** POST /_emulator/import: replaces the store with an export. */
    import: (file: unknown, options?: CallOptions) =>
      api.data<ImportResult>('POST', '/_emulator/import', { body: file, options }),
    /** POST /_emulator/reset: back to the seed. */
    reset: (options?: CallOptions) =>
      api.data<ResetResult>('POST', '/_emulator/reset', { body: {}, options }),
    /** POST /_emulator/events: emits an event with this payload (signed and logged like any delivery). */
    emit: (event: Loose<EventEmit>, options?: CallOptions) =>
      api.data<Delivery>('POST', '/_emulator/events', { body: event, options }),
    /** GET /_emulator/instances: a plugin's instances on every kind of entity, newest first (at most 100). */
    instancesOf: (pluginId: string, options?: CallOptions) => {
      const query = serializeListQuery({
        filters: { pluginId },
        sortBy: 'createdAt',
        sortOrder: 'desc',
        limit: 100,
      });
      return api.data<PluginInstance[]>('GET', '/_emulator/instances', { query, options });
    },
    /** GET /_emulator/agents: an org's agents (at most 100). */
    agentsOf: (orgId: string, options?: CallOptions) =>
      api.data<Agent[]>('GET', '/_emulator/agents', {
        query: serializeListQuery({ filters: { orgId }, limit: 100 }),
        options,
      }),
    faults: {
      /** GET /_emulator/faults: the fault profile and seed in force. */
      get: (options?: CallOptions) =>
        api.data<FaultSettings>('GET', '/_emulator/faults', { options }),
      /** PUT /_emulator/faults: sets the fault profile ('off' turns it off) and seed (default: a random one). */
      set: (profile: string, seed?: string, options?: CallOptions) =>
        api.data<FaultSettings>('PUT', '/_emulator/faults', {
          body: seed === undefined ? { profile } : { profile, seed },
          options,
        }),
    },
    scenario: {
      /** GET /_emulator/scenario: the scenario whose name new deliveries carry (null: none). */
      get: (options?: CallOptions) =>
        api.data<ScenarioTag>('GET', '/_emulator/scenario', { options }),
      /** PUT /_emulator/scenario: deliveries emitted from now on carry this name as `scenario` (null stops). */
      set: (name: string | null, options?: CallOptions) =>
        api.data<ScenarioTag>('PUT', '/_emulator/scenario', { body: { name }, options }),
    },
    holds: {
      /** GET /_emulator/plugins/:pluginId/hold: whether the plugin's deliveries are held, until when, how many wait. */
      get: (pluginId: string, options?: CallOptions) =>
        api.data<DeliveryHold>('GET', `/_emulator/plugins/${s(pluginId)}/hold`, { options }),
      /**
       * PUT /_emulator/plugins/:pluginId/hold: holds the plugin's deliveries, new and retried (never a challenge),
       * for `forMs` (default 60 s, at most 10 min); call again before then to renew. No attempt is spent meanwhile.
       */
      hold: (pluginId: string, hold: { forMs?: number } = {}, options?: CallOptions) =>
        api.data<DeliveryHold>('PUT', `/_emulator/plugins/${s(pluginId)}/hold`, {
          body: hold,
          options,
        }),
      /** DELETE /_emulator/plugins/:pluginId/hold: ends the hold; what waited goes at once, oldest first (`released` counts it). */
      release: (pluginId: string, options?: CallOptions) =>
        api.data<DeliveryHold>('DELETE', `/_emulator/plugins/${s(pluginId)}/hold`, { options }),
    },
    deliveries: {
      /** GET /_emulator/deliveries: the webhook delivery log, every attempt kept. */
      list: (query: DeliveryListQuery = {}, options?: CallOptions) => {
        const pairs = [
          ...plainParams({ pluginId: query.pluginId }),
          ...filterParams(query),
          ...serializeListQuery(query),
        ];
        return api.page<Delivery>('GET', '/_emulator/deliveries', { query: pairs, options });
      },
      /** GET /_emulator/deliveries/stream: every delivery attempt as an `attempt` event, as it happens. */
      stream: (filters: DeliveryStreamFilters = {}, options?: EventsOptions) =>
        openEventStream(api, '/_emulator/deliveries/stream', plainParams(filters), options),
      /** GET /_emulator/deliveries/:deliveryId */
      get: (deliveryId: string, options?: CallOptions) =>
        api.data<Delivery>('GET', `/_emulator/deliveries/${s(deliveryId)}`, { options }),
      /** POST /_emulator/deliveries/:deliveryId/redeliver: sends the same event again. */
      redeliver: (deliveryId: string, options?: CallOptions) =>
        api.data<Delivery>('POST', `/_emulator/deliveries/${s(deliveryId)}/redeliver`, { options }),
      /**
       * POST /_emulator/deliveries/redeliver: sends again, each as a new delivery, every delivery the
       * filters match (challenges never; at most 1,000 at once, else a 400 asking to narrow them).
       * Answers at once; the new deliveries' attempts follow over the stream.
       */
      redeliverMatching: (match: DeliveryMatch = {}, options?: CallOptions) => {
        const { pluginId, search, filters, ...own } = match;
        const query = [
          ...plainParams({ pluginId }),
          ...filterParams(own),
          ...serializeListQuery({ search, filters }),
        ];
        return api.data<BulkRedeliveryResult>('POST', '/_emulator/deliveries/redeliver', {
          query,
          options,
        });
      },
      /** POST /_emulator/deliveries/:deliveryId/retry: a pending delivery's next attempt, now (answers at once; 409 when not pending). */
      retry: (deliveryId: string, options?: CallOptions) =>
        api.data<Delivery>('POST', `/_emulator/deliveries/${s(deliveryId)}/retry`, { options }),
      /** POST /_emulator/deliveries/:deliveryId/cancel: a pending delivery's retries end; it becomes failed with `cancelledAt` (409 when not pending). */
      cancel: (deliveryId: string, options?: CallOptions) =>
        api.data<Delivery>('POST', `/_emulator/deliveries/${s(deliveryId)}/cancel`, { options }),
    },
    pluginOutput: {
      /** POST /_emulator/plugins/:pluginId/output: lines the plugin process wrote (at most 500 per call), kept and linked to attempts. */
      post: (pluginId: string, lines: PluginOutputLine[], options?: CallOptions) =>
        api.data<PluginOutputAccepted>('POST', `/_emulator/plugins/${s(pluginId)}/output`, {
          body: { lines },
          options,
        }),
      /** GET /_emulator/plugins/:pluginId/output: the plugin's lines after a cursor (`after`, default 0), oldest first; read on from `next`. */
      read: (
        pluginId: string,
        query: { after?: number; limit?: number } = {},
        options?: CallOptions,
      ) =>
        api.data<PluginOutputPage>('GET', `/_emulator/plugins/${s(pluginId)}/output`, {
          query: plainParams(query),
          options,
        }),
    },
    apiKeys: {
      /** POST /_emulator/api-keys: a new messaging API key of an org; the answer's `key` is the secret, shown only here. */
      create: (body: { orgId: string; name?: string }, options?: CallOptions) =>
        api.data<ApiKey>('POST', '/_emulator/api-keys', { body, options }),
      /** DELETE /_emulator/api-keys/:apiKeyId: revokes the key (its conversation streams end). */
      delete: (apiKeyId: string, options?: CallOptions) =>
        api.data<ApiKey>('DELETE', `/_emulator/api-keys/${s(apiKeyId)}`, { options }),
    },
    characters: {
      /** GET /_emulator/characters */
      list: (query?: ListQuery, options?: CallOptions) =>
        api.page<Character>('GET', '/_emulator/characters', {
          query: serializeListQuery(query),
          options,
        }),
      /** GET /_emulator/characters/:characterId */
      get: (characterId: string, options?: CallOptions) =>
        api.data<Character>('GET', `/_emulator/characters/${s(characterId)}`, { options }),
    },
  };
}

export type EmulatorAdminResource = ReturnType<typeof emulatorAdminResource>;
