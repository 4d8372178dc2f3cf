import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { Messaging } from '../messaging/messaging.js';
import type { ObjectStorage } from '../uploads/storage/types.js';
import { badRequest, detail } from '../errors.js';
import type { EmulatorConfig, StoreDeps } from '../context.js';
import type { PluginOutputLog } from '../plugin-output/service.js';

/** What the admin surface needs: it sees the whole emulator (settings, deliveries, messaging, storage, reset). */
export interface AdminDeps extends StoreDeps {
  config: EmulatorConfig;
  dispatcher: WebhookDispatcher;
  messaging: Messaging;
  storage: ObjectStorage;
  /** The plugins' own output (posted by the CLI), kept per plugin and linked to delivery attempts. */
  pluginOutput: PluginOutputLog;
  reset: () => Promise<void>;
}

/** The org named in a body, or a 400 pointing at the field (it is input, not a path). */
export function requireBodyOrg(services: AdminDeps, orgId: string): void {
  if (!services.db.orgs.has(orgId)) {
    throw badRequest(`No org ${orgId}`, [
      detail(['orgId'], 'not_found', 'the id of an existing org', orgId, `org ${orgId} not found`),
    ]);
  }
}

/** The agent named in a body, in the given org, or a 400 pointing at the field. */
export function requireBodyAgent(services: AdminDeps, agentId: string, orgId: string): void {
  const agent = services.db.agents.get(agentId);
  if (!agent)
    throw badRequest(`No agent ${agentId}`, [
      detail(
        ['agentId'],
        'not_found',
        'the id of an existing agent',
        agentId,
        `agent ${agentId} not found`,
      ),
    ]);
  if (agent.orgId !== orgId) {
    throw badRequest(`Agent ${agentId} belongs to org ${agent.orgId}, not ${orgId}`, [
      detail(
        ['agentId'],
        'invalid_reference',
        `an agent of org ${orgId}`,
        agentId,
        `agent ${agentId} belongs to another org`,
      ),
    ]);
  }
}

/** Who may call the emulator admin API, said once: the start of every admin operation's OpenAPI description. */
export const ADMIN_ONLY = 'With the admin token or a dashboard session:';
