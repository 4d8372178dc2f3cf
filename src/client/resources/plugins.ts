import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type {
  Plugin,
  PluginCreate,
  PluginUpdate,
  WebhookSecretRotation,
  WebhookVerification,
} from '../types.js';

/** Plugins: /api/plugins, /api/orgs/:orgId/plugins and the marketplace. */
export function pluginsResource(api: Api) {
  return {
    /** POST /api/plugins (`orgId` in the body). */
    create: (body: PluginCreate, options?: CallOptions) =>
      api.data<Plugin>('POST', '/api/plugins', { body, options }),
    /** POST /api/orgs/:orgId/plugins (the org comes from the path). */
    createInOrg: (orgId: string, body: Omit<PluginCreate, 'orgId'>, options?: CallOptions) =>
      api.data<Plugin>('POST', `/api/orgs/${s(orgId)}/plugins`, { body, options }),
    /** GET /api/plugins/:pluginId */
    get: (pluginId: string, options?: CallOptions) =>
      api.data<Plugin>('GET', `/api/plugins/${s(pluginId)}`, { options }),
    /** GET /api/orgs/:orgId/plugins (non-members see public plugins only). */
    listByOrg: (orgId: string, query?: ListQuery, options?: CallOptions) =>
      api.page<Plugin>('GET', `/api/orgs/${s(orgId)}/plugins`, {
        query: serializeListQuery(query),
        options,
      }),
    /** GET /api/plugins/marketplace; works without a token. */
    marketplace: (query?: ListQuery, options?: CallOptions) =>
      api.page<Plugin>('GET', '/api/plugins/marketplace', {
        query: serializeListQuery(query),
        options,
      }),
    /** PUT /api/plugins/:pluginId; a new webhookUrl resets `webhookUrlIsVerified`. */
    update: (pluginId: string, body: PluginUpdate, options?: CallOptions) =>
      api.data<Plugin>('PUT', `/api/plugins/${s(pluginId)}`, { body, options }),
    /** DELETE /api/plugins/:pluginId (OWNER only). */
    delete: (pluginId: string, options?: CallOptions) =>
      api.data<unknown>('DELETE', `/api/plugins/${s(pluginId)}`, { options }),
    /** POST /api/plugins/:pluginId/verify-webhook: sends WEBHOOK_CHALLENGE and reports the outcome. */
    verifyWebhook: (pluginId: string, options?: CallOptions) =>
      api.data<WebhookVerification>('POST', `/api/plugins/${s(pluginId)}/verify-webhook`, {
        options,
      }),
    /** POST /api/plugins/:pluginId/webhook-secret/rotate: a new secret; the previous one signs beside it for `graceSeconds` (default 24 h). */
    rotateWebhookSecret: (
      pluginId: string,
      body: { graceSeconds?: number } = {},
      options?: CallOptions,
    ) =>
      api.data<WebhookSecretRotation>('POST', `/api/plugins/${s(pluginId)}/webhook-secret/rotate`, {
        body,
        options,
      }),
  };
}

export type PluginsResource = ReturnType<typeof pluginsResource>;
