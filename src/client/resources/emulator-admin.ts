import type { Api } from '../api.js';
import { openEventStream, type EventsOptions } from '../event-stream.js';
import { segment as s, plainParams, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { Character, Delivery } from '../types.js';

/** Query of the delivery log. */
export interface DeliveryListQuery extends ListQuery {
  pluginId?: string;
}

/** Filters of the live delivery stream. */
export type DeliveryStreamFilters = {
  pluginId?: string;
  pluginInstanceId?: string;
  type?: string;
  status?: string;
};

/** The emulator's admin API under `/_emulator` (not part of the platform; only the emulator answers). */
export function emulatorAdminResource(api: Api) {
  return {
    /** GET /_emulator/health: 200 once the emulator serves. */
    health: (options?: CallOptions) => api.data<Record<string, unknown>>('GET', '/_emulator/health', { options }),
    deliveries: {
      /** GET /_emulator/deliveries: the webhook delivery log, every attempt kept. */
      list: (query: DeliveryListQuery = {}, options?: CallOptions) => {
        const { pluginId, ...rest } = query;
        return api.page<Delivery>('GET', '/_emulator/deliveries', { query: [...plainParams({ pluginId }), ...serializeListQuery(rest)], options });
      },
      /** GET /_emulator/deliveries/stream: every delivery attempt as an `attempt` event, as it happens. */
      stream: (filters: DeliveryStreamFilters = {}, options?: EventsOptions) =>
        openEventStream(api, '/_emulator/deliveries/stream', plainParams(filters), options),
      /** GET /_emulator/deliveries/:deliveryId */
      get: (deliveryId: string, options?: CallOptions) => api.data<Delivery>('GET', `/_emulator/deliveries/${s(deliveryId)}`, { options }),
      /** POST /_emulator/deliveries/:deliveryId/redeliver: sends the same event again. */
      redeliver: (deliveryId: string, options?: CallOptions) =>
        api.data<Delivery>('POST', `/_emulator/deliveries/${s(deliveryId)}/redeliver`, { options }),
    },
    characters: {
      /** GET /_emulator/characters */
      list: (query?: ListQuery, options?: CallOptions) => api.page<Character>('GET', '/_emulator/characters', { query: serializeListQuery(query), options }),
      /** GET /_emulator/characters/:characterId */
      get: (characterId: string, options?: CallOptions) => api.data<Character>('GET', `/_emulator/characters/${s(characterId)}`, { options }),
    },
  };
}

export type EmulatorAdminResource = ReturnType<typeof emulatorAdminResource>;
