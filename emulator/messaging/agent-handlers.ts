import type { InstanceRecord } from '../model.js';
import { subscribes, type EventDispatcher } from '../webhooks/dispatcher.js';
import type { ConversationStore } from './conversation-service.js';

/** What messaging needs of the emulator's services: the store and its collections, and the webhook dispatcher. */
export interface MessagingHost extends ConversationStore {
  events: EventDispatcher;
}

/** The event a character's agent receives for every user message. */
export const AGENT_MESSAGE_RECEIVED = 'AGENT_MESSAGE_RECEIVED' as const;

/**
 * The EVENT_HANDLER instances attached to an agent that subscribe to AGENT_MESSAGE_RECEIVED (and
 * whose plugin, with a webhook, does too). With at least one, the character is plugin-driven: the plugin writes the reply.
 */
export function agentMessageHandlers({ db }: MessagingHost, agentId: string): InstanceRecord[] {
  return db.instances.where('entityId', agentId).filter((instance) => {
    if (instance.entityType !== 'AGENT') return false;
    const plugin = db.plugins.get(instance.pluginId);
    return plugin !== undefined && plugin.type === 'EVENT_HANDLER' && plugin.webhookUrl !== null && subscribes(plugin, instance, AGENT_MESSAGE_RECEIVED);
  });
}
