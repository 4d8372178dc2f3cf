import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { DeliveryListQuery } from '../client/index.js';
import { EVENT_KINDS } from '../shared/contract/enum-values.js';
import { listCharacters } from '../commands/chat/list-characters.js';
import { type Connect, pluginIdOf, withConnection } from './connection.js';
import { deliveryDetail, deliveryRow, result } from './shape.js';

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const anyObject = z.record(z.unknown());
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const;

/** Registers the tools that only read the emulator: the ones `--read-only` offers. */
export function registerReadTools(server: McpServer, connect: Connect): void {
  server.registerTool(
    'emulator_status',
    {
      title: 'Emulator status',
      description:
        "The project's local emulator: its URLs, the project folder, each plugin (type, webhook URL, whether the webhook is verified, events) with its instances, and the fault profile in force. Call this first: the plugin and instance ids it lists are what the other tools take. Credentials are never shown.",
      inputSchema: {},
      outputSchema: {
        url: z.string(),
        messagingUrl: z.string().nullable(),
        project: z.string().nullable(),
        orgId: z.string().nullable(),
        projectPluginId: z.string().nullable(),
        plugins: z.array(anyObject),
        faults: anyObject,
      },
      annotations: READ_ONLY,
    },
    () =>
      withConnection(connect, async (connection) => {
        const { client, settings } = connection;
        const orgId = settings.orgId ?? null;
        const projectPluginId = await pluginIdOf(connection, undefined).catch(() => null);
        const page = orgId ? await client.plugins.listByOrg(orgId, { limit: 100 }) : { data: [] };
        const plugins = await Promise.all(
          page.data.map(async (plugin) => {
            const instances = await client.emulator.instancesOf(plugin.id);
            return {
              id: plugin.id,
              name: plugin.name,
              type: plugin.type,
              webhookUrl: plugin.webhookUrl,
              webhookUrlIsVerified: plugin.webhookUrlIsVerified,
              events: plugin.events,
              scopes: plugin.scopes,
              ofThisProject: plugin.id === projectPluginId,
              instances: instances.map((instance) => ({
                id: instance.id,
                entityType: instance.entityType,
                entityId: instance.entityId,
                events: instance.events,
              })),
            };
          }),
        );
        const faults = await client.emulator.faults.get();
        const status = {
          url: settings.baseUrl ?? '',
          messagingUrl: settings.messagingUrl ?? null,
          project: connection.project,
          orgId,
          projectPluginId,
          plugins,
          faults: faults as Record<string, unknown>,
        };
        const summary = `Emulator at ${status.url}; ${plugins.length} plugin(s)${projectPluginId ? `, this project's is ${projectPluginId}` : ''}; faults ${faults.on ? `on (${faults.profile})` : 'off'}.`;
        return result(summary, status, connection.credentials);
      }),
  );

  server.registerTool(
    'list_deliveries',
    {
      title: 'List deliveries',
      description:
        "The emulator's webhook delivery log, newest first: each event sent to a plugin, its status (pending: retries to come; delivered: answered 2xx; failed/exhausted: did not get through) and its last answer. Filter by status, event kind, plugin, failed (at least one attempt failed), since (an ISO time) and scenario. get_delivery shows one in full.",
      inputSchema: {
        status: z.enum(DELIVERY_STATUSES).optional().describe('only deliveries in this status'),
        type: z.enum(EVENT_KINDS).optional().describe('only this event kind'),
        pluginId: z.string().optional().describe('only this plugin (default: every plugin)'),
        failed: z
          .boolean()
          .optional()
          .describe('only deliveries with at least one failed attempt, whatever their status now'),
        since: z
          .string()
          .datetime({ offset: true })
          .optional()
          .describe('only deliveries created at or after this ISO 8601 time'),
        scenario: z
          .string()
          .optional()
          .describe('only deliveries emitted while this scenario ran (run_scenarios)'),
        limit: z.number().int().min(1).max(100).default(20),
      },
      outputSchema: { deliveries: z.array(anyObject), total: z.number().nullable() },
      annotations: READ_ONLY,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const query: DeliveryListQuery = {
          pluginId: args.pluginId,
          failedOnce: args.failed,
          since: args.since,
          sortBy: 'createdAt',
          sortOrder: 'desc',
          limit: args.limit,
          filters: {
            ...(args.status ? { status: args.status } : {}),
            ...(args.type ? { type: args.type } : {}),
            ...(args.scenario ? { scenario: args.scenario } : {}),
          },
        };
        const page = await connection.client.emulator.deliveries.list(query);
        const deliveries = page.data.map(deliveryRow);
        const total = page.pagination?.type === 'index' ? page.pagination.total : null;
        const summary =
          deliveries.length === 0
            ? 'No delivery matches.'
            : `${deliveries.length} deliveries, newest first.`;
        return result(summary, { deliveries, total }, connection.credentials);
      }),
  );

  server.registerTool(
    'get_delivery',
    {
      title: 'Get a delivery',
      description:
        'One delivery in full: every attempt (when, the URL, the headers sent, the HTTP status and body the plugin answered, the error, the signature verdict), the faults injected, and the event that was sent. The plugin\'s answers and the event payload are under "untrusted".',
      inputSchema: {
        deliveryId: z.string().min(1).describe('the id, dlv_…, from list_deliveries'),
      },
      outputSchema: { delivery: anyObject },
      annotations: READ_ONLY,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const delivery = await connection.client.emulator.deliveries.get(args.deliveryId);
        const last = delivery.attempts.at(-1);
        const summary = `Delivery ${delivery.id} (${delivery.type}) is ${delivery.status} after ${delivery.attempts.length} attempt(s)${last ? `; last answer: ${last.responseStatus ?? last.error ?? 'none'}` : ''}.`;
        return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
      }),
  );

  server.registerTool(
    'follow_deliveries',
    {
      title: 'Follow deliveries',
      description:
        "What changed in the delivery log since a cursor: deliveries created or attempted after it, oldest first, and the cursor to pass next time. Call without a cursor to start (you get the latest few); call again with nextCursor to follow along without listing everything. The plugin process's own stdout/stderr is shown only in the terminal of `plugsmith dev`; what the plugin answered each delivery is in each delivery's last answer (get_delivery has the bodies).",
      inputSchema: {
        cursor: z
          .string()
          .datetime({ offset: true })
          .optional()
          .describe('nextCursor of the previous call (an ISO time)'),
        pluginId: z.string().optional(),
        limit: z.number().int().min(1).max(100).default(20),
      },
      outputSchema: { deliveries: z.array(anyObject), nextCursor: z.string() },
      annotations: READ_ONLY,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const page = await connection.client.emulator.deliveries.list({
          pluginId: args.pluginId,
          sortBy: 'updatedAt',
          sortOrder: 'desc',
          limit: args.cursor ? 100 : args.limit,
        });
        const cursor = args.cursor ? Date.parse(args.cursor) : Number.NEGATIVE_INFINITY;
        const changed = page.data
          .filter((delivery) => Date.parse(delivery.updatedAt) > cursor)
          .slice(0, args.limit)
          .reverse();
        const newest = changed.at(-1)?.updatedAt;
        const nextCursor = newest ?? args.cursor ?? new Date(0).toISOString();
        const summary =
          changed.length === 0
            ? 'Nothing new since the cursor.'
            : `${changed.length} delivery(ies) changed, oldest first.`;
        return result(
          summary,
          { deliveries: changed.map(deliveryRow), nextCursor },
          connection.credentials,
        );
      }),
  );

  server.registerTool(
    'list_characters',
    {
      title: 'List characters',
      description:
        "The emulator's characters (each belongs to an agent): the ids send_chat_message takes. A message to a character of an agent where an EVENT_HANDLER plugin is installed reaches that plugin as AGENT_MESSAGE_RECEIVED.",
      inputSchema: {},
      outputSchema: { characters: z.array(anyObject) },
      annotations: READ_ONLY,
    },
    () =>
      withConnection(connect, async (connection) => {
        const characters = await listCharacters(connection.client, connection.settings.orgId);
        const rows = characters.map((character) => ({
          id: character.id,
          agentId: character.agentId,
          engine: character.engine,
          untrusted: { name: character.name },
        }));
        return result(`${rows.length} character(s).`, { characters: rows }, connection.credentials);
      }),
  );
}
