import type { InstanceEntityType } from '#contract';
import { entityTypeOfPluginType, installsPath, isInstallEntityType } from '#contract/installs';
import type { PlatformClient, Plugin, PluginInstance } from '../client/index.js';
import { installOn, installsOn } from '../client/installs.js';
import { uploadRepositoryFile } from '../client/repository-file.js';
import type { WebhookEventType } from '../shared/webhooks/events.js';
import { UserError, EXIT } from '../errors.js';
import { sampleValue } from './fixtures.js';

// The platform action behind each event kind `plugsmith trigger` sends through the platform (trigger.ts
// waits for the delivery it leads to): an install on a sample entity, an uninstall, a user's message
// to the agent's character, a sample file added to or removed from a repository.

/** What a platform action did: the instance the event is about, the action in words, and for a message its conversation. */
export interface Emitted {
  instance: PluginInstance;
  via: string;
  conversationId?: string;
  messageId?: string;
}

/** The entity a sample install goes on: the org's first repository (made if none), its first agent, or the sample app. */
async function sampleEntity(
  client: PlatformClient,
  plugin: Plugin,
  orgId: string,
): Promise<{ entityType: InstanceEntityType; id: string }> {
  const entityType = entityTypeOfPluginType(plugin.type) ?? 'APP';
  if (entityType === 'REPOSITORY') {
    const repos = await client.repositories.listByOrg(orgId, { limit: 1 });
    const id =
      repos.data[0]?.id ??
      (
        await client.repositories.createInOrg(orgId, {
          name: 'Sample repository (plugsmith trigger)',
        })
      ).id;
    return { entityType, id };
  }
  if (entityType === 'AGENT') {
    const agent = (await client.emulator.agentsOf(orgId))[0];
    if (!agent)
      throw new UserError(
        `org ${orgId} has no agent to install on: create one with POST /_emulator/agents {"orgId": "${orgId}", "name": "…"}`,
        EXIT.USAGE,
      );
    return { entityType, id: agent.id };
  }
  return { entityType, id: String(sampleValue('PLUGIN_INSTALLED', 'appId')) };
}

/** Installs the plugin on a sample entity of its org (its first install), which emits PLUGIN_INSTALLED. */
export async function installSample(client: PlatformClient, plugin: Plugin): Promise<Emitted> {
  const orgId = plugin.orgId;
  const body = {
    name: String(sampleValue('PLUGIN_INSTALLED', 'instanceName')),
    pluginId: plugin.id,
    events: plugin.events ?? [],
    scopes: plugin.scopes ?? [],
    inputs: sampleValue('PLUGIN_INSTALLED', 'inputs') as Record<string, unknown>,
  };
  const entity = await sampleEntity(client, plugin, orgId);
  return {
    instance: await installOn(client, entity.entityType, entity.id, body, { orgId }),
    via: `POST /api${installsPath(entity.entityType, entity.id)}`,
  };
}

/** The platform actions that emit the events about an existing instance. */
type Emitter = (
  client: PlatformClient,
  plugin: Plugin,
  instance: PluginInstance,
) => Promise<Emitted>;
export const EMITTERS: Record<
  Exclude<WebhookEventType, 'WEBHOOK_CHALLENGE' | 'PLUGIN_INSTALLED'>,
  Emitter
> = {
  async PLUGIN_UNINSTALLED(client, _plugin, instance) {
    const { entityId, entityType } = instance;
    if (!isInstallEntityType(entityType))
      throw new Error(`instance ${instance.id} is on an unknown kind of entity: ${entityType}`);
    await installsOn(client, entityType).remove(entityId, instance.id);
    return { instance, via: `DELETE /api${installsPath(entityType, entityId)}/${instance.id}` };
  },
  async AGENT_MESSAGE_RECEIVED(client, _plugin, instance) {
    const { character, conversation } = await openConversation(client, instance.entityId);
    const sent = await client.messaging.messages.send(conversation.id, {
      content: String(sampleValue('AGENT_MESSAGE_RECEIVED', 'text')),
      type: 'TEXT',
    });
    const via = `a user message to ${character.name} (${character.id}) in conversation ${conversation.id}`;
    return { instance, via, conversationId: conversation.id, messageId: sent.id };
  },
  async REPOSITORY_FILE_ADDED(client, plugin, instance) {
    const repositoryId = instance.entityId;
    const fileId = await addSampleFile(client, instance.orgId ?? plugin.orgId, repositoryId);
    return {
      instance,
      via: `an upload of ${String(sampleValue('REPOSITORY_FILE_ADDED', 'fileName'))} (${fileId}) added to repository ${repositoryId}`,
    };
  },
  async REPOSITORY_FILE_REMOVED(client, plugin, instance) {
    const repositoryId = instance.entityId;
    const held = await client.repositories.files.list(repositoryId, { limit: 1 });
    let fileId = held.data[0]?.id;
    let added = '';
    if (!fileId) {
      fileId = await addSampleFile(client, instance.orgId ?? plugin.orgId, repositoryId);
      added = ' (a sample file was added first)';
    }
    await client.repositories.files.remove(repositoryId, fileId);
    return { instance, via: `DELETE /api/repositories/${repositoryId}/files/${fileId}${added}` };
  },
};

/** A new conversation with the agent's first character, or a usage error saying how to create one. */
export async function openConversation(
  client: PlatformClient,
  agentId: string,
): Promise<{ character: { id: string; name: string }; conversation: { id: string } }> {
  const character = (await client.emulator.characters.list({ filters: { agentId }, limit: 100 }))
    .data[0];
  if (!character)
    throw new UserError(
      `agent ${agentId} has no character to write to: create one with POST /_emulator/characters {"orgId": …, "agentId": "${agentId}", "name": …}`,
      EXIT.USAGE,
    );
  return {
    character,
    conversation: await client.messaging.conversations.create({ characterId: character.id }),
  };
}

/** Uploads the fixture's sample file and adds it to the repository (which emits REPOSITORY_FILE_ADDED). */
async function addSampleFile(
  client: PlatformClient,
  orgId: string,
  repositoryId: string,
): Promise<string> {
  const fileName = String(sampleValue('REPOSITORY_FILE_ADDED', 'fileName'));
  const contentType = String(sampleValue('REPOSITORY_FILE_ADDED', 'contentType'));
  const bytes = Buffer.from(String(sampleValue('REPOSITORY_FILE_ADDED', 'content')));
  return uploadRepositoryFile(client, { repositoryId, orgId, fileName, contentType, bytes });
}
