import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Delivery, Message, PlatformClient, Plugin, PluginInstance } from '../client/index.js';
import type { EmulatorAdmin } from '../dev/emulator-admin.js';
import { LIFECYCLE_EVENTS, type WebhookEventType } from '../webhooks/events.js';
import { UserError, EXIT } from '../errors.js';
import { sampleData, sampleValue } from './fixtures.js';
import { applyOverrides, type DataOverride } from './overrides.js';

/** What to trigger. Overrides or a whole `data` make the emulator emit that payload instead of going through the real route. */
interface TriggerRequest {
  type: WebhookEventType;
  pluginId: string;
  instanceId?: string;
  overrides?: DataOverride[];
  data?: Record<string, unknown>;
  /** How long to wait for the delivery's first attempt; default 15 s. */
  timeoutMs?: number;
}

/** What happened: how the event was made, and the delivery it led to (null if none showed up in time). */
interface TriggerResult {
  type: WebhookEventType;
  pluginId: string;
  pluginInstanceId: string | null;
  /** The platform action that emitted the event, in words. */
  via: string;
  delivery: Delivery | null;
  /** WEBHOOK_CHALLENGE only: whether the webhook is now verified, and why not. */
  verified?: boolean;
  reason?: string;
  /** AGENT_MESSAGE_RECEIVED only: the conversation the event is about (a real one). */
  conversationId?: string;
  /** AGENT_MESSAGE_RECEIVED only: the character message the plugin wrote in answer (null if none came in time). */
  reply?: Message | null;
}

/** Where a trigger runs: a client with the user's token (and API key for messages) and the emulator's admin API. */
interface TriggerTarget {
  client: PlatformClient;
  admin: EmulatorAdmin;
}

const ENTITY_OF: Partial<Record<WebhookEventType, string>> = {
  AGENT_MESSAGE_RECEIVED: 'AGENT',
  REPOSITORY_FILE_ADDED: 'REPOSITORY',
  REPOSITORY_FILE_REMOVED: 'REPOSITORY',
};

/** The plugin type that receives each activity event (lifecycle events go to every type). */
const PLUGIN_TYPE_OF: Partial<Record<WebhookEventType, string>> = {
  AGENT_MESSAGE_RECEIVED: 'EVENT_HANDLER',
  REPOSITORY_FILE_ADDED: 'DATA_PROVIDER',
  REPOSITORY_FILE_REMOVED: 'DATA_PROVIDER',
};

/** The events a plugin of a type can receive, for the message of an event that does not apply. */
function eventsForPluginType(pluginType: string): WebhookEventType[] {
  return [...LIFECYCLE_EVENTS, ...(Object.keys(PLUGIN_TYPE_OF) as WebhookEventType[]).filter((t) => PLUGIN_TYPE_OF[t] === pluginType)];
}

/** Refuses an event the plugin's type never receives (a DATA_PROVIDER is never told of agent messages). */
function requireApplicable(plugin: Plugin, type: WebhookEventType): void {
  const wanted = PLUGIN_TYPE_OF[type];
  if (!wanted || plugin.type === wanted) return;
  throw new UserError(
    `${type} does not apply to plugin ${plugin.id}: it goes to ${wanted} plugins only, and this one is ${plugin.type === 'APP' ? 'an' : 'a'} ${String(plugin.type)} (it can receive ${eventsForPluginType(String(plugin.type)).join(', ')})`,
    EXIT.USAGE,
  );
}

/** Makes the emulator emit one event to a plugin for real, and waits for the delivery's first attempt. */
export async function triggerEvent(target: TriggerTarget, request: TriggerRequest): Promise<TriggerResult> {
  const { client } = target;
  const plugin = await client.plugins.get(request.pluginId);
  requireApplicable(plugin, request.type);
  if (!plugin.webhookUrl) {
    throw new UserError(`plugin ${plugin.id} has no webhookUrl: set one in plugsmith.json and run \`plugsmith deploy\` (or \`plugsmith plugins update ${plugin.id} --webhook-url URL\`)`, EXIT.USAGE);
  }
  const custom = (request.overrides?.length ?? 0) > 0 || request.data !== undefined;
  if (custom) return emitCustom(target, plugin, request);
  switch (request.type) {
    case 'WEBHOOK_CHALLENGE':
      return challenge(target, plugin);
    case 'PLUGIN_INSTALLED':
      return install(target, plugin, request);
    case 'PLUGIN_UNINSTALLED':
      return uninstall(target, plugin, request);
    case 'AGENT_MESSAGE_RECEIVED':
      return agentMessage(target, plugin, request);
    case 'REPOSITORY_FILE_ADDED':
      return fileAdded(target, plugin, request);
    case 'REPOSITORY_FILE_REMOVED':
      return fileRemoved(target, plugin, request);
  }
}

/** The instance to act on: the one named, else the plugin's newest (on the right kind of entity). */
async function pickInstance(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<PluginInstance> {
  const instances = await target.admin.instancesOf(plugin.id);
  const entityType = ENTITY_OF[request.type];
  if (request.instanceId) {
    const named = instances.find((i) => i.id === request.instanceId);
    if (!named) throw new UserError(`plugin ${plugin.id} has no instance ${request.instanceId}${instances.length ? ` (its instances: ${instances.map((i) => i.id).join(', ')})` : ''}`, EXIT.NOT_FOUND);
    if (entityType && named.entityType !== entityType) {
      throw new UserError(`${request.type} needs an instance on ${entityType === 'AGENT' ? 'an agent' : 'a repository'}; ${named.id} is on ${String(named.entityType).toLowerCase()} ${named.entityId}`, EXIT.USAGE);
    }
    return named;
  }
  const fitting = instances.filter((i) => !entityType || i.entityType === entityType);
  if (fitting.length === 0) {
    const noun = plugin.type === 'DATA_PROVIDER' ? 'providers add REPOSITORY_ID' : plugin.type === 'EVENT_HANDLER' ? 'handlers add AGENT_ID' : 'apps add APP_ID';
    const how = `\`plugsmith ${noun} --plugin ${plugin.id}\` or the manifest's "installs"`;
    throw new UserError(`plugin ${plugin.id} has no instance${entityType ? ` on ${entityType === 'AGENT' ? 'an agent' : 'a repository'}` : ''}: run \`plugsmith trigger PLUGIN_INSTALLED --plugin ${plugin.id}\` (installs a sample one) or install it with ${how}`, EXIT.NOT_FOUND);
  }
  return fitting[0];
}

function requireSubscription(plugin: Plugin, instance: PluginInstance | null, type: WebhookEventType): void {
  if ((LIFECYCLE_EVENTS as readonly string[]).includes(type)) return;
  if (!plugin.events?.includes(type)) {
    throw new UserError(`plugin ${plugin.id} does not subscribe to ${type}: add it to "events" in plugsmith.json and run \`plugsmith deploy\``, EXIT.USAGE);
  }
  if (instance && !instance.events?.includes(type)) {
    throw new UserError(`instance ${instance.id} does not subscribe to ${type} (its events: ${instance.events?.join(', ') || 'none'}); install it again with the event`, EXIT.USAGE);
  }
}

/** The ids of the plugin's deliveries of a type so far, to tell the new one apart. */
async function deliveryIds(client: PlatformClient, pluginId: string, type: string): Promise<Set<string>> {
  const page = await client.emulator.deliveries.list({ pluginId, filters: { type }, limit: 100 });
  return new Set(page.data.map((d) => d.id));
}

/** Polls the log for a new delivery of the plugin (and instance) that has had its first attempt. */
async function waitForDelivery(client: PlatformClient, match: { pluginId: string; type: string; pluginInstanceId?: string }, before: Set<string>, timeoutMs = 15_000): Promise<Delivery | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await client.emulator.deliveries.list({ pluginId: match.pluginId, filters: { type: match.type, ...(match.pluginInstanceId ? { pluginInstanceId: match.pluginInstanceId } : {}) }, limit: 20 });
    const fresh = page.data.find((d) => !before.has(d.id));
    if (fresh && (fresh.attempts.length > 0 || fresh.status !== 'pending')) return fresh;
    if (Date.now() > deadline) return fresh ?? null;
    await sleep(100);
  }
}

function knownOf(plugin: Plugin, instance: PluginInstance | null): Record<string, unknown> {
  return {
    pluginId: plugin.id,
    orgId: plugin.orgId,
    events: plugin.events,
    scopes: plugin.scopes,
    ...(instance
      ? {
          pluginInstanceId: instance.id,
          instance,
          entityId: instance.entityId,
          entityType: instance.entityType,
          instanceName: instance.name,
          ...(instance.entityType === 'AGENT' ? { agentId: instance.entityId } : {}),
          ...(instance.entityType === 'REPOSITORY' ? { repositoryId: instance.entityId } : {}),
        }
      : {}),
  };
}

/** `--set`/`--data`: the sample (or given) payload, emitted by the emulator's admin API, signed and logged like any delivery. */
async function emitCustom(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<TriggerResult> {
  const instance = request.type === 'WEBHOOK_CHALLENGE' ? null : await pickInstance(target, plugin, request);
  requireSubscription(plugin, instance, request.type);
  const known = knownOf(plugin, instance);
  let conversationId: string | undefined;
  // Without a whole --data, the sample is about a real conversation with a character of the agent, so
  // that the plugin's answer into it succeeds as it would on the platform.
  if (request.type === 'AGENT_MESSAGE_RECEIVED' && instance && request.data === undefined) {
    const character = await characterOf(target, String(instance.entityId));
    const conversation = await target.client.messaging.conversations.create({ characterId: character.id });
    conversationId = conversation.id;
    Object.assign(known, { characterId: character.id, conversationId });
  }
  if (instance?.entityType === 'REPOSITORY') {
    const files = await target.client.repositories.files.list(String(instance.entityId), { limit: 1 });
    if (files.data[0]) Object.assign(known, { file: files.data[0], fileId: files.data[0].id });
  }
  const data = applyOverrides(request.data ?? sampleData(request.type, known), request.overrides ?? []);
  const delivery = (await target.admin.emit({ type: request.type, pluginId: plugin.id, pluginInstanceId: instance?.id, data, mode: 'SYNC' }));
  const result: TriggerResult = { type: request.type, pluginId: plugin.id, pluginInstanceId: instance?.id ?? null, via: 'the emulator\'s admin API (POST /_emulator/events) with your payload', delivery };
  if (conversationId) {
    result.conversationId = conversationId;
    result.reply = delivery?.status === 'delivered' ? await waitForReply(target.client, conversationId, undefined, request.timeoutMs) : null;
  }
  return result;
}

async function challenge(target: TriggerTarget, plugin: Plugin): Promise<TriggerResult> {
  const result = await target.client.plugins.verifyWebhook(plugin.id);
  const deliveryId = result.deliveryId;
  const delivery = deliveryId ? await target.client.emulator.deliveries.get(deliveryId) : null;
  return {
    type: 'WEBHOOK_CHALLENGE',
    pluginId: plugin.id,
    pluginInstanceId: null,
    via: `POST /api/plugins/${plugin.id}/verify-webhook`,
    delivery,
    verified: Boolean(result.verified),
    reason: result.verified ? undefined : result.reason,
  };
}

async function install(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<TriggerResult> {
  const { client, admin } = target;
  const orgId = String(plugin.orgId);
  const body = {
    name: String(sampleValue('PLUGIN_INSTALLED', 'instanceName')),
    pluginId: plugin.id,
    events: plugin.events ?? [],
    scopes: plugin.scopes ?? [],
    inputs: sampleValue('PLUGIN_INSTALLED', 'inputs') as Record<string, unknown>,
  };
  const before = await deliveryIds(client, plugin.id, 'PLUGIN_INSTALLED');
  let instance: PluginInstance;
  let via: string;
  if (plugin.type === 'DATA_PROVIDER') {
    const repos = await client.repositories.listByOrg(orgId, { limit: 1 });
    const repositoryId = repos.data[0]?.id ?? (await client.repositories.createInOrg(orgId, { name: 'Sample repository (plugsmith trigger)' })).id;
    instance = await client.dataProviders.add(repositoryId, body);
    via = `POST /api/repositories/${repositoryId}/data-providers`;
  } else if (plugin.type === 'EVENT_HANDLER') {
    const agent = (await admin.agentsOf(orgId))[0];
    if (!agent) throw new UserError(`org ${orgId} has no agent to install on: create one with POST /_emulator/agents {"orgId": "${orgId}", "name": "…"}`, EXIT.USAGE);
    instance = await client.agentPlugins.attach(agent.id, body);
    via = `POST /api/agents/${agent.id}/plugins`;
  } else {
    const appId = String(sampleValue('PLUGIN_INSTALLED', 'appId'));
    instance = await client.appPlugins.attach(appId, { ...body, orgId });
    via = `POST /api/apps/${appId}/plugins`;
  }
  const delivery = await waitForDelivery(client, { pluginId: plugin.id, type: 'PLUGIN_INSTALLED', pluginInstanceId: instance.id }, before, request.timeoutMs);
  return { type: 'PLUGIN_INSTALLED', pluginId: plugin.id, pluginInstanceId: instance.id, via, delivery };
}

async function uninstall(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<TriggerResult> {
  const { client } = target;
  const instance = await pickInstance(target, plugin, request);
  const entityId = String(instance.entityId);
  const before = await deliveryIds(client, plugin.id, 'PLUGIN_UNINSTALLED');
  const resource = instance.entityType === 'REPOSITORY' ? client.dataProviders : instance.entityType === 'AGENT' ? client.agentPlugins : client.appPlugins;
  await resource.remove(entityId, instance.id);
  const path = instance.entityType === 'REPOSITORY' ? 'repositories' : instance.entityType === 'AGENT' ? 'agents' : 'apps';
  const delivery = await waitForDelivery(client, { pluginId: plugin.id, type: 'PLUGIN_UNINSTALLED', pluginInstanceId: instance.id }, before, request.timeoutMs);
  const collection = instance.entityType === 'REPOSITORY' ? 'data-providers' : 'plugins';
  return { type: 'PLUGIN_UNINSTALLED', pluginId: plugin.id, pluginInstanceId: instance.id, via: `DELETE /api/${path}/${entityId}/${collection}/${instance.id}`, delivery };
}

async function agentMessage(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<TriggerResult> {
  const { client } = target;
  const instance = await pickInstance(target, plugin, request);
  requireSubscription(plugin, instance, 'AGENT_MESSAGE_RECEIVED');
  const character = await characterOf(target, String(instance.entityId));
  const before = await deliveryIds(client, plugin.id, 'AGENT_MESSAGE_RECEIVED');
  const conversation = await client.messaging.conversations.create({ characterId: character.id });
  const sent = await client.messaging.messages.send(conversation.id, { content: String(sampleValue('AGENT_MESSAGE_RECEIVED', 'text')), type: 'TEXT' });
  const delivery = await waitForDelivery(client, { pluginId: plugin.id, type: 'AGENT_MESSAGE_RECEIVED', pluginInstanceId: instance.id }, before, request.timeoutMs);
  const reply = delivery?.status === 'delivered' ? await waitForReply(client, conversation.id, sent.id, request.timeoutMs) : null;
  return {
    type: 'AGENT_MESSAGE_RECEIVED',
    pluginId: plugin.id,
    pluginInstanceId: instance.id,
    via: `a user message to ${character.name} (${character.id}) in conversation ${conversation.id}`,
    delivery,
    conversationId: conversation.id,
    reply,
  };
}

/** The agent's first character, or a usage error saying how to create one. */
async function characterOf(target: TriggerTarget, agentId: string): Promise<{ id: string; name: string }> {
  const character = (await target.client.emulator.characters.list({ filters: { agentId }, limit: 100 })).data[0];
  if (!character) throw new UserError(`agent ${agentId} has no character to write to: create one with POST /_emulator/characters {"orgId": …, "agentId": "${agentId}", "name": …}`, EXIT.USAGE);
  return character;
}

/** Polls the conversation for the plugin's finished character message after `after` (the user's), until the time is up. */
async function waitForReply(client: PlatformClient, conversationId: string, after: string | undefined, timeoutMs = 15_000): Promise<Message | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await client.messaging.messages.list(conversationId, { after, limit: 100 });
    const written = page.data.filter((m) => m.sender === 'CHARACTER');
    const done = written.find((m) => !m.isStreaming);
    if (done) return done;
    if (Date.now() > deadline) return written[0] ?? null;
    await sleep(100);
  }
}

/** Uploads the fixture's sample file and adds it to the repository (which emits REPOSITORY_FILE_ADDED). */
async function addSampleFile(client: PlatformClient, orgId: string, repositoryId: string): Promise<string> {
  const fileName = String(sampleValue('REPOSITORY_FILE_ADDED', 'fileName'));
  const contentType = String(sampleValue('REPOSITORY_FILE_ADDED', 'contentType'));
  const bytes = Buffer.from(String(sampleValue('REPOSITORY_FILE_ADDED', 'content')));
  const urls = await client.uploads.generateUploadUrls({ files: [{ fileName, contentType, fileSize: bytes.length }], parentId: orgId, parentType: 'ORG' });
  const { signedUrl, fileRecord } = urls.files[0];
  await client.uploads.uploadFile(signedUrl, Readable.from([bytes]), { size: bytes.length, contentType });
  await client.uploads.setStatus({ fileId: fileRecord.id, status: 'UPLOADED' });
  await client.repositories.files.add(repositoryId, fileRecord.id);
  return fileRecord.id;
}

async function fileAdded(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<TriggerResult> {
  const { client } = target;
  const instance = await pickInstance(target, plugin, request);
  requireSubscription(plugin, instance, 'REPOSITORY_FILE_ADDED');
  const repositoryId = String(instance.entityId);
  const before = await deliveryIds(client, plugin.id, 'REPOSITORY_FILE_ADDED');
  const fileId = await addSampleFile(client, String(instance.orgId ?? plugin.orgId), repositoryId);
  const delivery = await waitForDelivery(client, { pluginId: plugin.id, type: 'REPOSITORY_FILE_ADDED', pluginInstanceId: instance.id }, before, request.timeoutMs);
  return { type: 'REPOSITORY_FILE_ADDED', pluginId: plugin.id, pluginInstanceId: instance.id, via: `an upload of ${String(sampleValue('REPOSITORY_FILE_ADDED', 'fileName'))} (${fileId}) added to repository ${repositoryId}`, delivery };
}

async function fileRemoved(target: TriggerTarget, plugin: Plugin, request: TriggerRequest): Promise<TriggerResult> {
  const { client } = target;
  const instance = await pickInstance(target, plugin, request);
  requireSubscription(plugin, instance, 'REPOSITORY_FILE_REMOVED');
  const repositoryId = String(instance.entityId);
  const held = await client.repositories.files.list(repositoryId, { limit: 1 });
  let fileId = held.data[0]?.id;
  let added = '';
  if (!fileId) {
    fileId = await addSampleFile(client, String(instance.orgId ?? plugin.orgId), repositoryId);
    added = ' (a sample file was added first)';
  }
  const before = await deliveryIds(client, plugin.id, 'REPOSITORY_FILE_REMOVED');
  await client.repositories.files.remove(repositoryId, fileId);
  const delivery = await waitForDelivery(client, { pluginId: plugin.id, type: 'REPOSITORY_FILE_REMOVED', pluginInstanceId: instance.id }, before, request.timeoutMs);
  return { type: 'REPOSITORY_FILE_REMOVED', pluginId: plugin.id, pluginInstanceId: instance.id, via: `DELETE /api/repositories/${repositoryId}/files/${fileId}${added}`, delivery };
}
