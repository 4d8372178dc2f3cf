import { setTimeout as sleep } from 'node:timers/promises';
import type { InstanceEntityType, PluginType } from '#contract';
import { entityTypeOfPluginType, INSTALL_TARGETS, isInstallEntityType } from '#contract/installs';
import type { Delivery, Message, PlatformClient, Plugin, PluginInstance } from '../client/index.js';
import { LIFECYCLE_EVENTS, type WebhookEventType } from '../shared/webhooks/events.js';
import { UserError, EXIT } from '../errors.js';
import { accepted, readFailedAttempt } from '../delivery-watch/index.js';
import { sampleData } from './fixtures.js';
import { applyOverrides, type DataOverride } from './overrides.js';
import { EMITTERS, installSample, openConversation, type Emitted } from './actions.js';

/** What to trigger. Overrides or a whole `data` make the emulator emit that payload instead of going through the real route. */
interface TriggerRequest {
  type: WebhookEventType;
  pluginId: string;
  instanceId?: string;
  overrides?: DataOverride[];
  data?: Record<string, unknown>;
  /** How long to wait for the delivery's first attempt; default 15 s. */
  timeoutMs?: number;
  /**
   * Whether the client carries a messaging API key (default true). Without one, a message's
   * conversation is made with a key of the instance's org borrowed from the emulator's admin API
   * and revoked afterwards; without a messaging URL, the emulator's health answer gives it.
   */
  hasApiKey?: boolean;
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

/** The entity each activity event is about (lifecycle events are about any); only the plugin type installed there (`INSTALL_TARGETS`) receives it. */
const ACTIVITY: Partial<Record<WebhookEventType, InstanceEntityType>> = {
  AGENT_MESSAGE_RECEIVED: 'AGENT',
  REPOSITORY_FILE_ADDED: 'REPOSITORY',
  REPOSITORY_FILE_REMOVED: 'REPOSITORY',
};

/** The noun with its article, for a message ("an agent"). */
const withArticle = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** The plugin type that receives an activity event (undefined for a lifecycle event: every type does). */
function receivingPluginType(type: WebhookEventType): PluginType | undefined {
  const entityType = ACTIVITY[type];
  return entityType && INSTALL_TARGETS[entityType].pluginType;
}

/** Refuses an event the plugin's type never receives (a DATA_PROVIDER is never told of agent messages). */
function requireApplicable(plugin: Plugin, type: WebhookEventType): void {
  const wanted = receivingPluginType(type);
  if (!wanted || plugin.type === wanted) return;
  const receivable = [
    ...LIFECYCLE_EVENTS,
    ...(Object.keys(ACTIVITY) as WebhookEventType[]).filter(
      (t) => receivingPluginType(t) === plugin.type,
    ),
  ];
  throw new UserError(
    `${type} does not apply to plugin ${plugin.id}: it goes to ${wanted} plugins only, and this one is ${plugin.type === 'APP' ? 'an' : 'a'} ${plugin.type} (it can receive ${receivable.join(', ')})`,
    EXIT.USAGE,
  );
}

/** Makes the emulator emit one event to a plugin for real, and waits for the delivery's first attempt. */
export async function triggerEvent(
  client: PlatformClient,
  request: TriggerRequest,
): Promise<TriggerResult> {
  const plugin = await client.plugins.get(request.pluginId);
  requireApplicable(plugin, request.type);
  if (!plugin.webhookUrl) {
    throw new UserError(
      `plugin ${plugin.id} has no webhookUrl: set one in plugsmith.json and run \`plugsmith deploy\` (or \`plugsmith plugins update ${plugin.id} --webhook-url URL\`)`,
      EXIT.USAGE,
    );
  }
  const needsMessaging = request.type === 'AGENT_MESSAGE_RECEIVED' && request.data === undefined;
  if (needsMessaging && (!client.messagingUrl || request.hasApiKey === false)) {
    // The org of the key is the instance's (its agent's characters are that org's).
    const instance = await pickInstance(client, plugin, request);
    requireSubscription(plugin, instance, request.type);
    const named = { ...request, instanceId: instance.id, hasApiKey: true };
    return withFailedOutput(
      client,
      await withMessaging(client, instance.orgId ?? plugin.orgId, request, (messaging) =>
        emitOrAct(messaging, plugin, named),
      ),
    );
  }
  return withFailedOutput(client, await emitOrAct(client, plugin, request));
}

/** A delivery whose last attempt failed, read again with the plugin's own output linked to that attempt (`pluginOutput`). */
async function withFailedOutput(
  client: PlatformClient,
  result: TriggerResult,
): Promise<TriggerResult> {
  const last = result.delivery?.attempts.at(-1);
  if (!result.delivery || !last || accepted(last)) return result;
  const { delivery } = await readFailedAttempt(client, result.delivery, { number: last.number });
  return { ...result, delivery };
}

/** The event made by the platform's own route, or by the admin API for a payload given with --set/--data. */
async function emitOrAct(
  client: PlatformClient,
  plugin: Plugin,
  request: TriggerRequest,
): Promise<TriggerResult> {
  if (request.overrides?.length || request.data !== undefined)
    return emitCustom(client, plugin, request);
  const type = request.type;
  if (type === 'WEBHOOK_CHALLENGE') return challenge(client, plugin);
  if (type === 'PLUGIN_INSTALLED') return installed(client, plugin, request);
  const instance = await pickInstance(client, plugin, request);
  requireSubscription(plugin, instance, type);
  return throughPlatform(client, plugin, request, () => EMITTERS[type](client, plugin, instance));
}

/**
 * Runs `work` with a client that reaches the messaging API: the emulator's messaging URL (from its
 * health answer) when none is set, and, without an API key, a temporary one of `orgId` made with
 * the admin API and revoked once the work is done. What cannot be found names the variables to set.
 */
async function withMessaging<T>(
  client: PlatformClient,
  orgId: string,
  request: TriggerRequest,
  work: (client: PlatformClient) => Promise<T>,
): Promise<T> {
  const settle = `set PLUGSMITH_MESSAGING_URL and PLUGSMITH_API_KEY (a messaging API key of org ${orgId})`;
  let messagingUrl = client.messagingUrl;
  if (!messagingUrl) {
    const health = await client.emulator.health().catch(() => null);
    if (typeof health?.messagingUrl !== 'string')
      throw new UserError(
        `AGENT_MESSAGE_RECEIVED starts a real conversation through the messaging API, and ${client.baseUrl} did not say where that is: ${settle}`,
        EXIT.AUTH,
      );
    messagingUrl = health.messagingUrl;
  }
  if (request.hasApiKey !== false) return work(client.withOptions({ messagingUrl }));
  const key = await client.emulator.apiKeys
    .create({ orgId, name: 'plugsmith trigger (temporary)' })
    .catch((error: Error & { status?: number }) => {
      throw new UserError(
        `AGENT_MESSAGE_RECEIVED starts a real conversation through the messaging API, which needs an API key of org ${orgId}, and the emulator's admin API would not make one (${error.message}): ${settle}, or PLUGSMITH_ADMIN_TOKEN so that trigger can borrow one`,
        EXIT.AUTH,
      );
    });
  try {
    return await work(client.withOptions({ messagingUrl, apiKey: key.key }));
  } finally {
    await client.emulator.apiKeys.delete(key.id).catch(() => undefined);
  }
}

/** The instance to act on: the one named, else the plugin's newest (on the right kind of entity). */
async function pickInstance(
  client: PlatformClient,
  plugin: Plugin,
  request: TriggerRequest,
): Promise<PluginInstance> {
  const instances = await client.emulator.instancesOf(plugin.id);
  const entityType = ACTIVITY[request.type];
  const onEntity = entityType && withArticle(INSTALL_TARGETS[entityType].noun);
  if (request.instanceId) {
    const named = instances.find((i) => i.id === request.instanceId);
    if (!named)
      throw new UserError(
        `plugin ${plugin.id} has no instance ${request.instanceId}${instances.length ? ` (its instances: ${instances.map((i) => i.id).join(', ')})` : ''}`,
        EXIT.NOT_FOUND,
      );
    if (entityType && named.entityType !== entityType) {
      throw new UserError(
        `${request.type} needs an instance on ${onEntity}; ${named.id} is on ${named.entityType.toLowerCase()} ${named.entityId}`,
        EXIT.USAGE,
      );
    }
    return named;
  }
  const fitting = instances.filter((i) => !entityType || i.entityType === entityType);
  if (fitting.length === 0) {
    const installedOn = entityTypeOfPluginType(plugin.type) ?? 'APP';
    const add = `${INSTALL_TARGETS[installedOn].command} add ${installedOn}_ID`;
    const how = `\`plugsmith ${add} --plugin ${plugin.id}\` or the manifest's "installs"`;
    throw new UserError(
      `plugin ${plugin.id} has no instance${entityType ? ` on ${onEntity}` : ''}: run \`plugsmith trigger PLUGIN_INSTALLED --plugin ${plugin.id}\` (installs a sample one) or install it with ${how}`,
      EXIT.NOT_FOUND,
    );
  }
  return fitting[0];
}

function requireSubscription(
  plugin: Plugin,
  instance: PluginInstance | null,
  type: WebhookEventType,
): void {
  if ((LIFECYCLE_EVENTS as readonly string[]).includes(type)) return;
  if (!plugin.events?.includes(type)) {
    throw new UserError(
      `plugin ${plugin.id} does not subscribe to ${type}: add it to "events" in plugsmith.json and run \`plugsmith deploy\``,
      EXIT.USAGE,
    );
  }
  if (instance && !instance.events?.includes(type)) {
    throw new UserError(
      `instance ${instance.id} does not subscribe to ${type} (its events: ${instance.events?.join(', ') || 'none'}); install it again with the event`,
      EXIT.USAGE,
    );
  }
}

/** Polls the log for a new delivery of the plugin (and instance) that has had its first attempt. */
async function waitForDelivery(
  client: PlatformClient,
  match: { pluginId: string; type: string; pluginInstanceId: string },
  before: Set<string>,
  timeoutMs = 15_000,
): Promise<Delivery | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await client.emulator.deliveries.list({
      pluginId: match.pluginId,
      filters: { type: match.type, pluginInstanceId: match.pluginInstanceId },
      limit: 20,
    });
    const fresh = page.data.find((d) => !before.has(d.id));
    if (fresh && (fresh.attempts.length > 0 || fresh.status !== 'pending')) return fresh;
    if (Date.now() > deadline) return fresh ?? null;
    // A local list answers in a few ms: a short poll keeps `trigger` (and the MCP tool) close to the plugin's own time.
    await sleep(20);
  }
}

function knownOf(plugin: Plugin, instance: PluginInstance | null): Record<string, unknown> {
  const known = {
    pluginId: plugin.id,
    orgId: plugin.orgId,
    events: plugin.events,
    scopes: plugin.scopes,
  };
  if (!instance) return known;
  return {
    ...known,
    pluginInstanceId: instance.id,
    instance,
    entityId: instance.entityId,
    entityType: instance.entityType,
    instanceName: instance.name,
    ...(instance.entityType === 'AGENT' ? { agentId: instance.entityId } : {}),
    ...(instance.entityType === 'REPOSITORY' ? { repositoryId: instance.entityId } : {}),
  };
}

/** `--set`/`--data`: the sample (or given) payload, emitted by the emulator's admin API, signed and logged like any delivery. */
async function emitCustom(
  client: PlatformClient,
  plugin: Plugin,
  request: TriggerRequest,
): Promise<TriggerResult> {
  const instance =
    request.type === 'WEBHOOK_CHALLENGE' ? null : await pickInstance(client, plugin, request);
  requireSubscription(plugin, instance, request.type);
  const known = knownOf(plugin, instance);
  let conversationId: string | undefined;
  // Without a whole --data, the sample is about a real conversation, so the plugin's answer into it succeeds.
  if (request.type === 'AGENT_MESSAGE_RECEIVED' && instance && request.data === undefined) {
    const { character, conversation } = await openConversation(client, instance.entityId);
    conversationId = conversation.id;
    Object.assign(known, { characterId: character.id, conversationId });
  }
  if (instance?.entityType === 'REPOSITORY') {
    const files = await client.repositories.files.list(instance.entityId, { limit: 1 });
    if (files.data[0]) Object.assign(known, { file: files.data[0], fileId: files.data[0].id });
  }
  const data = applyOverrides(
    request.data ?? sampleData(request.type, known),
    request.overrides ?? [],
  );
  const delivery = await client.emulator.emit({
    type: request.type,
    pluginId: plugin.id,
    pluginInstanceId: instance?.id,
    data,
    mode: 'SYNC',
  });
  const result = {
    type: request.type,
    pluginId: plugin.id,
    pluginInstanceId: instance?.id ?? null,
    via: "the emulator's admin API (POST /_emulator/events) with your payload",
    delivery,
  };
  if (!conversationId) return result;
  const reply =
    delivery?.status === 'delivered'
      ? await waitForReply(client, conversationId, undefined, request.timeoutMs)
      : null;
  return { ...result, conversationId, reply };
}

async function challenge(client: PlatformClient, plugin: Plugin): Promise<TriggerResult> {
  const result = await client.plugins.verifyWebhook(plugin.id);
  const delivery = result.deliveryId
    ? await client.emulator.deliveries.get(result.deliveryId)
    : null;
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

/** Runs the platform action that emits the event, then waits for the delivery's first attempt (and a message's reply). */
async function throughPlatform(
  client: PlatformClient,
  plugin: Plugin,
  request: TriggerRequest,
  act: () => Promise<Emitted>,
): Promise<TriggerResult> {
  // The plugin's deliveries of the type so far, to tell the new one apart.
  const earlier = await client.emulator.deliveries.list({
    pluginId: plugin.id,
    filters: { type: request.type },
    limit: 100,
  });
  const before = new Set(earlier.data.map((d) => d.id));
  const { instance, via, conversationId, messageId } = await act();
  const delivery = await waitForDelivery(
    client,
    { pluginId: plugin.id, type: request.type, pluginInstanceId: instance.id },
    before,
    request.timeoutMs,
  );
  const result = {
    type: request.type,
    pluginId: plugin.id,
    pluginInstanceId: instance.id,
    via,
    delivery,
  };
  if (!conversationId) return result;
  const reply =
    delivery?.status === 'delivered'
      ? await waitForReply(client, conversationId, messageId, request.timeoutMs)
      : null;
  return { ...result, conversationId, reply };
}

/**
 * PLUGIN_INSTALLED about an instance the plugin already has (`--instance`, else its newest): the
 * logged install event sent again, same event id and token, so no instance is added and no later
 * event goes out twice. Only a plugin with no instance gets one installed (its first).
 */
async function installed(
  client: PlatformClient,
  plugin: Plugin,
  request: TriggerRequest,
): Promise<TriggerResult> {
  const instances = await client.emulator.instancesOf(plugin.id);
  if (instances.length === 0 && !request.instanceId)
    return throughPlatform(client, plugin, request, () => installSample(client, plugin));
  const instance = await pickInstance(client, plugin, request);
  const logged = await client.emulator.deliveries.list({
    pluginId: plugin.id,
    filters: { type: 'PLUGIN_INSTALLED', pluginInstanceId: instance.id },
    sortBy: 'createdAt',
    sortOrder: 'asc',
    limit: 1,
  });
  const original = logged.data[0];
  if (!original) {
    throw new UserError(
      `instance ${instance.id}'s PLUGIN_INSTALLED is not in the delivery log (the store was imported or reset?), so its token cannot be sent again: uninstall and install it again (\`plugsmith ${installNoun(instance)} remove ${instance.entityId} ${instance.id}\`, then \`add\`)`,
      EXIT.NOT_FOUND,
    );
  }
  const delivery = await client.emulator.deliveries.redeliver(original.id);
  return {
    type: 'PLUGIN_INSTALLED',
    pluginId: plugin.id,
    pluginInstanceId: instance.id,
    via: `a resend of instance ${instance.id}'s install (delivery ${original.id}: the same event and token; no instance added)`,
    delivery,
  };
}

/** The CLI noun that installs and removes instances on an instance's kind of entity (`handlers` for a kind this code does not know). */
function installNoun(instance: PluginInstance): string {
  const entityType = isInstallEntityType(instance.entityType) ? instance.entityType : 'AGENT';
  return INSTALL_TARGETS[entityType].command;
}

/** Polls the conversation for the plugin's finished character message after `after` (the user's), until the time is up. */
async function waitForReply(
  client: PlatformClient,
  conversationId: string,
  after: string | undefined,
  timeoutMs = 15_000,
): Promise<Message | null> {
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
