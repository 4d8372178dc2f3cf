import type { Db, InstanceRecord, MessageRecord } from '../model.js';
import type { Store } from '../store/store.js';
import type { EventDispatcher } from '../webhooks/dispatcher.js';
import { subscribes } from '../webhooks/dispatcher.js';

/** What messaging needs of the emulator's services: the store and its collections, and the webhook dispatcher. */
export interface MessagingHost {
  db: Db;
  store: Store;
  events: EventDispatcher;
}

/** The event a character's agent receives for every user message. */
export const AGENT_MESSAGE_RECEIVED = 'AGENT_MESSAGE_RECEIVED' as const;

/** `data` of AGENT_MESSAGE_RECEIVED (DESIGN.md "Webhook delivery"). */
export interface AgentMessageReceivedData {
  agentId: string;
  characterId: string;
  conversationId: string;
  message: MessageRecord;
}

/**
 * The EVENT_HANDLER instances attached to an agent that subscribe to AGENT_MESSAGE_RECEIVED
 * (the instance lists the event and its plugin, an EVENT_HANDLER with a webhook, wants it too).
 * When there is at least one, the character is plugin-driven: the plugin writes the reply.
 */
export function agentMessageHandlers(services: MessagingHost, agentId: string): InstanceRecord[] {
  const { db } = services;
  return db.instances.where('entityId', agentId).filter((instance) => {
    if (instance.entityType !== 'AGENT') return false;
    const plugin = db.plugins.get(instance.pluginId);
    return plugin !== undefined && plugin.type === 'EVENT_HANDLER' && plugin.webhookUrl !== null && subscribes(plugin, instance, AGENT_MESSAGE_RECEIVED);
  });
}

/**
 * Sends AGENT_MESSAGE_RECEIVED to the handlers through the webhook dispatcher; resolves once
 * SYNC instances have had their first attempt (ASYNC ones are queued). Never throws: a
 * delivery problem shows in the delivery log, not in the user's request.
 */
export async function deliverAgentMessageReceived(services: MessagingHost, handlers: InstanceRecord[], data: AgentMessageReceivedData): Promise<void> {
  try {
    await services.events.emitForInstances(AGENT_MESSAGE_RECEIVED, handlers, data);
  } catch {
    // The dispatcher logs failed attempts itself; the user's message is stored either way.
  }
}
