import type { Db, InstanceRecord } from '../model.js';
import { subscribes } from '../webhooks/dispatcher.js';

/** The event a character's agent receives for every user message. */
export const AGENT_MESSAGE_RECEIVED = 'AGENT_MESSAGE_RECEIVED' as const;

/** An agent's EVENT_HANDLER instances (plugin with a webhook) subscribed to AGENT_MESSAGE_RECEIVED: with one, the plugin replies. */
export function replyingInstances(db: Db, agentId: string): InstanceRecord[] {
  return db.instances.where('entityId', agentId).filter((instance) => {
    if (instance.entityType !== 'AGENT') return false;
    const plugin = db.plugins.get(instance.pluginId);
    return (
      plugin !== undefined &&
      plugin.type === 'EVENT_HANDLER' &&
      plugin.webhookUrl !== null &&
      subscribes(plugin, instance, AGENT_MESSAGE_RECEIVED)
    );
  });
}
