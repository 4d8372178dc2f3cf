import type { AgentMessageReceivedEvent } from 'plugsmith/webhooks';
import type { PluginConfig } from './config.js';
import { installationHandlers } from './installations.js';
import { platformAs } from './platform.js';
import { replyTo } from './reply.js';
import { startWebhookServer, type WebhookServer } from './server.js';
import { TokenStore } from './token-store.js';

/** The running event handler. */
export interface Plugin extends WebhookServer {
  tokens: TokenStore;
  /** Ids of the messages this plugin wrote, by the id of the user message they answer. */
  replies: Map<string, string>;
}

/**
 * An EVENT_HANDLER: installed on an agent, it is told of every message a user sends to one of
 * the agent's characters (AGENT_MESSAGE_RECEIVED) and answers it by writing the character's
 * message with the installation's token (scope AGENT_MESSAGE_WRITE).
 */
export async function startPlugin(config: PluginConfig): Promise<Plugin> {
  const tokens = new TokenStore(config.tokenFile);
  const replies = new Map<string, string>();

  async function messageReceived(event: AgentMessageReceivedEvent): Promise<object> {
    const { agentId, conversationId, message } = event.data;
    // A retried delivery (same message) must not answer twice.
    const earlier = replies.get(message.id);
    if (earlier) return { ok: true, messageId: earlier };
    const installation = await tokens.get(event.pluginInstanceId);
    // Unknown instance: answering 500 makes the platform retry once PLUGIN_INSTALLED has arrived.
    if (!installation) throw new Error(`no installation token for ${event.pluginInstanceId}`);
    const platform = platformAs(config.platformUrl, installation.accessToken);
    const content = await replyTo(message.content);
    // The whole reply in one message; send `isStreaming: true` and then more packets with its
    // `messageId` to stream a long answer.
    const written = await platform.agentMessages.write(agentId, conversationId, {
      content,
      isStreaming: false,
    });
    replies.set(message.id, written.id);
    return { ok: true, messageId: written.id };
  }

  const server = await startWebhookServer({
    port: config.port,
    host: config.host,
    secret: config.webhookSecret,
    log: config.log,
    eventShapes: config.eventShapes,
    on: {
      ...installationHandlers(tokens),
      AGENT_MESSAGE_RECEIVED: messageReceived,
    },
  });
  return { ...server, tokens, replies };
}
