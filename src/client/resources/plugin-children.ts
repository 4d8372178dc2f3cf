import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type {
  Action,
  ActionCreate,
  ActionUpdate,
  ExternalEvent,
  ExternalEventCreate,
  ExternalEventUpdate,
} from '../types.js';

/** CRUD of named records under a plugin: `actions` or `external-events`. */
export function namedUnderPlugin<TRecord, TCreate, TUpdate>(api: Api, collection: string) {
  const base = (pluginId: string) => `/api/plugins/${s(pluginId)}/${collection}`;
  return {
    /** Lists the plugin's records. */
    list: (pluginId: string, query?: ListQuery, options?: CallOptions) =>
      api.page<TRecord>('GET', base(pluginId), { query: serializeListQuery(query), options }),
    /** Reads one record by name. */
    get: (pluginId: string, name: string, options?: CallOptions) =>
      api.data<TRecord>('GET', `${base(pluginId)}/${s(name)}`, { options }),
    /** Creates a record (MEMBER or OWNER); a duplicate name is a CONFLICT. */
    create: (pluginId: string, body: TCreate, options?: CallOptions) =>
      api.data<TRecord>('POST', base(pluginId), { body, options }),
    /** Updates a record by name (MEMBER or OWNER). */
    update: (pluginId: string, name: string, body: TUpdate, options?: CallOptions) =>
      api.data<TRecord>('PUT', `${base(pluginId)}/${s(name)}`, { body, options }),
    /** Deletes a record by name (OWNER only). */
    delete: (pluginId: string, name: string, options?: CallOptions) =>
      api.data<unknown>('DELETE', `${base(pluginId)}/${s(name)}`, { options }),
  };
}

export type ActionsResource = ReturnType<
  typeof namedUnderPlugin<Action, ActionCreate, ActionUpdate>
>;
export type ExternalEventsResource = ReturnType<
  typeof namedUnderPlugin<ExternalEvent, ExternalEventCreate, ExternalEventUpdate>
>;
