import type { InstanceRecord } from '../model.js';
import { subscribes, type EventDispatcher } from '../webhooks/dispatcher.js';
import type { ConversationStore } from './conversation-service.js';

/** What messaging needs of the emulator's services: the store and its collections, and the webhook dispatcher. */
export interface MessagingHost extends ConversationStore {
  events: EventDispatcher;
}

/** The event a character's agent receives for every user message. */
export const AGENT_MESSAGE_RECEIVED = 'AGENT_MESSAGE_RECEIVED' as const;

/** An agent's EVENT_HANDLER instances (plugin with a webhook) subscribed to AGENT_MESSAGE_RECEIVED: with one, the plugin replies. */
export function agentMessageHandlers({ db }: MessagingHost, agentId: string): InstanceRecord[] {
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
