import type { PlatformClient, Plugin } from '../client/index.js';
import { createWebhookEvent } from '../shared/webhooks/events.js';
import { sampleData } from '../trigger/fixtures.js';
import { checkId } from './probe.js';

/** Counts the character messages an EVENT_HANDLER writes in a real conversation: that tells "answered" from "did the work". */
export interface SideEffectObserver {
  /** In words, for the report: where the work is counted. */
  where: string;
  /** An AGENT_MESSAGE_RECEIVED about the observed conversation, with a fresh message (and event) id. */
  messageEvent(): Record<string, unknown>;
  /** An event of the observed instance with any type and this event's data (for the unknown-event check). */
  eventOfType(type: string, data: unknown): Record<string, unknown>;
  /** Character messages written in the observed conversation so far. */
  writes(): Promise<number>;
}

/** The observer, or the reason there is none (with what to do about it). */
type ObserverSetup =
  | { observer: SideEffectObserver; reason?: undefined }
  | { observer: null; reason: string };

/** Sets up a conversation to watch, when the plugin is an EVENT_HANDLER installed on an agent of this emulator. */
export async function observeSideEffects(
  client: PlatformClient | null,
  plugin: Plugin | null,
  why?: string,
): Promise<ObserverSetup> {
  if (!client || !plugin)
    return {
      observer: null,
      reason:
        why ??
        'no platform to watch: run against the local emulator with the plugin deployed (`plugsmith dev`, or `plugsmith login --local` and `--plugin PLUGIN_ID`)',
    };
  if (plugin.type !== 'EVENT_HANDLER') {
    return {
      observer: null,
      reason: `the platform sees no work of ${plugin.type === 'APP' ? 'an' : 'a'} ${String(plugin.type)} to count (only an EVENT_HANDLER's messages are counted); make your handler idempotent by event id all the same`,
    };
  }
  try {
    const instance = (await client.emulator.instancesOf(plugin.id)).find(
      (i) => i.entityType === 'AGENT',
    );
    if (!instance)
      return {
        observer: null,
        reason: `plugin ${plugin.id} is not installed on an agent: \`plugsmith handlers add AGENT_ID --plugin ${plugin.id} --scopes AGENT_MESSAGE_WRITE\` (or the manifest's "installs" with \`plugsmith dev\`)`,
      };
    const agentId = String(instance.entityId);
    const character = (await client.emulator.characters.list({ filters: { agentId }, limit: 100 }))
      .data[0];
    if (!character)
      return { observer: null, reason: `agent ${agentId} has no character to write to` };
    const conversation = await client.messaging.conversations.create({ characterId: character.id });
    const known = {
      pluginId: plugin.id,
      orgId: plugin.orgId,
      pluginInstanceId: instance.id,
      agentId,
      characterId: character.id,
      conversationId: conversation.id,
    };
    const event = (type: string, data: unknown) =>
      createWebhookEvent(type, {
        pluginId: plugin.id,
        pluginInstanceId: instance.id,
        orgId: String(plugin.orgId),
        data,
      });
    return {
      observer: {
        where: `conversation ${conversation.id} of agent ${agentId} (instance ${instance.id})`,
        messageEvent: () =>
          event(
            'AGENT_MESSAGE_RECEIVED',
            sampleData('AGENT_MESSAGE_RECEIVED', {
              ...known,
              messageId: checkId('msg'),
              text: 'plugsmith check: a message to answer once',
            }),
          ),
        eventOfType: event,
        writes: async () => {
          const page = await client.messaging.messages.list(conversation.id, { limit: 100 });
          return page.data.filter((m) => m.sender === 'CHARACTER').length;
        },
      },
    };
  } catch (error) {
    return {
      observer: null,
      reason: `could not set up a conversation to watch: ${(error as Error).message} (the messaging API needs \`plugsmith login --local\` or PLUGSMITH_MESSAGING_URL and PLUGSMITH_API_KEY)`,
    };
  }
}
