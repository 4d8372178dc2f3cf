import type { Api } from '../api.js';
import { segment as s } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { AgentMessageWrite, Message } from '../types.js';

/** Character messages written by a plugin instance (scope AGENT_MESSAGE_WRITE). */
export function agentMessagesResource(api: Api) {
  return {
    /** POST /api/agents/:agentId/conversations/:conversationId/messages, with an instance token. */
    write: (
      agentId: string,
      conversationId: string,
      body: AgentMessageWrite,
      options?: CallOptions,
    ) =>
      api.data<Message>(
        'POST',
        `/api/agents/${s(agentId)}/conversations/${s(conversationId)}/messages`,
        { body, options },
      ),
  };
}

export type AgentMessagesResource = ReturnType<typeof agentMessagesResource>;
