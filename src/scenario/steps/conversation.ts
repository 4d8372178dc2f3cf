import type { Static } from '@sinclair/typebox';
import type { ConversationStepSchema } from '../schema.js';
import type { StepContext, StepModule } from '../context.js';

// The `conversation` step: a user opens a conversation with a character (messaging API). The
// character is the one named, else the first of the agent named, else the first of the agent the
// plugin is installed on; the last two are found through the emulator's admin API only.

export type ConversationStep = Static<typeof ConversationStepSchema>;

export const conversationStep: StepModule<'conversation'> = {
  label: (step) => `conversation with ${step.character ?? step.agent ?? "the plugin's agent"}`,
  run: async (step, context) => {
    const character = await characterOf(step, context);
    const conversation = await context.client.messaging.conversations.create({
      characterId: character.id,
    });
    context.scope.conversationId = conversation.id;
    return { id: conversation.id, characterId: character.id, agentId: character.agentId };
  },
};

async function characterOf(
  step: ConversationStep,
  context: StepContext,
): Promise<{ id: string; agentId: string | null }> {
  const { client, pluginId } = context;
  const characters = client.emulator.characters;
  // A remote platform lists no characters: the id is taken as given (validation refused a conversation without one),
  // and its agent is not known (the result's agentId is null).
  if (context.remote && step.character !== undefined) return { id: step.character, agentId: null };
  if (step.character !== undefined) {
    const character = await characters.get(step.character);
    return { id: character.id, agentId: character.agentId };
  }
  let agentId = step.agent;
  if (!agentId) {
    const instances = await client.emulator.instancesOf(pluginId);
    agentId = instances.find((i) => i.entityType === 'AGENT')?.entityId;
    if (!agentId)
      throw new Error(
        `plugin ${pluginId} is installed on no agent: name one ("conversation": { "agent": "agent_…" }) or install it first (an "install" step)`,
      );
  }
  const found = (await characters.list({ filters: { agentId }, limit: 1 })).data[0];
  if (!found) throw new Error(`agent ${agentId} has no character to talk to`);
  return { id: found.id, agentId };
}
