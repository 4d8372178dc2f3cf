import { ALLOW_ORDER } from '../http.js';
import { DESCRIPTIONS } from './descriptions.js';
import { HOLD_ROUTE_METADATA } from '../admin/hold.js';

/**
 * A node of the OpenAPI document (a path item, an operation, a response, a schema), read and rewritten by key.
 * The document is @fastify/swagger's output reshaped here; no published type fits it at every depth.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one name for the document's untyped JSON nodes, used by the walks in this folder
export type OpenApiNode = any;

/** An OpenAPI 3.1 document (or the routes' part of one), as JSON. */
export type OpenApiDocument = Record<string, OpenApiNode>;

// What the route schemas do not say: operation ids, summaries, tags, links from creates, and the shape OpenAPI tools read.

/** operationId, tag, summary of every operation, by `METHOD path` (a test fails on any operation missing here). */
const OPERATIONS: Readonly<
  Record<string, readonly [operationId: string, tag: string, summary: string]>
> = {
  'POST /api/tokens': ['createToken', 'tokens', 'Create a personal access token'],
  'POST /api/plugins': ['createPlugin', 'plugins', 'Create a plugin (the org in the body)'],
  'POST /api/orgs/{orgId}/plugins': ['createOrgPlugin', 'plugins', 'Create a plugin in an org'],
  'GET /api/orgs/{orgId}/plugins': ['listOrgPlugins', 'plugins', "List an org's plugins"],
  'GET /api/plugins/marketplace': [
    'listMarketplacePlugins',
    'plugins',
    'List the public plugins (no credential needed)',
  ],
  'GET /api/plugins/{pluginId}': ['getPlugin', 'plugins', 'Get a plugin'],
  'PUT /api/plugins/{pluginId}': ['updatePlugin', 'plugins', 'Update a plugin'],
  'DELETE /api/plugins/{pluginId}': ['deletePlugin', 'plugins', 'Delete a plugin'],
  'GET /api/plugins/{pluginId}/actions': ['listActions', 'actions', "List a plugin's actions"],
  'POST /api/plugins/{pluginId}/actions': ['createAction', 'actions', 'Create an action'],
  'GET /api/plugins/{pluginId}/actions/{name}': ['getAction', 'actions', 'Get an action'],
  'PUT /api/plugins/{pluginId}/actions/{name}': ['updateAction', 'actions', 'Update an action'],
  'DELETE /api/plugins/{pluginId}/actions/{name}': ['deleteAction', 'actions', 'Delete an action'],
  'GET /api/plugins/{pluginId}/external-events': [
    'listExternalEvents',
    'external-events',
    "List a plugin's external events",
  ],
  'POST /api/plugins/{pluginId}/external-events': [
    'createExternalEvent',
    'external-events',
    'Create an external event',
  ],
  'GET /api/plugins/{pluginId}/external-events/{eventName}': [
    'getExternalEvent',
    'external-events',
    'Get an external event',
  ],
  'PUT /api/plugins/{pluginId}/external-events/{eventName}': [
    'updateExternalEvent',
    'external-events',
    'Update an external event',
  ],
  'DELETE /api/plugins/{pluginId}/external-events/{eventName}': [
    'deleteExternalEvent',
    'external-events',
    'Delete an external event',
  ],
  'POST /api/repositories': [
    'createRepository',
    'repositories',
    'Create a repository (the org in the body)',
  ],
  'POST /api/orgs/{orgId}/repositories': [
    'createOrgRepository',
    'repositories',
    'Create a repository in an org',
  ],
  'GET /api/orgs/{orgId}/repositories': [
    'listOrgRepositories',
    'repositories',
    "List an org's repositories",
  ],
  'GET /api/repositories/{repositoryId}': ['getRepository', 'repositories', 'Get a repository'],
  'POST /api/plugins/{pluginId}/verify-webhook': [
    'verifyWebhook',
    'webhooks',
    "Send the WEBHOOK_CHALLENGE to a plugin's webhook URL",
  ],
  'POST /api/plugins/{pluginId}/webhook-secret/rotate': [
    'rotateWebhookSecret',
    'webhooks',
    "Rotate a plugin's webhook signing secret",
  ],
  'POST /api/repositories/{repositoryId}/data-providers': [
    'installDataProvider',
    'instances',
    'Install a plugin on a repository as a data provider',
  ],
  'GET /api/repositories/{repositoryId}/data-providers': [
    'listDataProviders',
    'instances',
    "List a repository's data providers",
  ],
  'DELETE /api/repositories/{repositoryId}/data-providers/{pluginInstanceId}': [
    'uninstallDataProvider',
    'instances',
    'Uninstall a data provider',
  ],
  'POST /api/agents/{agentId}/plugins': [
    'installAgentPlugin',
    'instances',
    'Install a plugin on an agent',
  ],
  'GET /api/agents/{agentId}/plugins': [
    'listAgentPlugins',
    'instances',
    "List an agent's plugin instances",
  ],
  'DELETE /api/agents/{agentId}/plugins/{pluginInstanceId}': [
    'uninstallAgentPlugin',
    'instances',
    'Uninstall a plugin from an agent',
  ],
  'POST /api/apps/{appId}/plugins': ['installAppPlugin', 'instances', 'Install a plugin on an app'],
  'GET /api/apps/{appId}/plugins': [
    'listAppPlugins',
    'instances',
    "List an app's plugin instances",
  ],
  'DELETE /api/apps/{appId}/plugins/{pluginInstanceId}': [
    'uninstallAppPlugin',
    'instances',
    'Uninstall a plugin from an app',
  ],
  'POST /api/agents/{agentId}/conversations/{conversationId}/messages': [
    'writeAgentMessage',
    'agent-messages',
    "Write (or stream) an agent's message into a conversation",
  ],
  'GET /api/generate-upload-url': [
    'generateUploadUrlWithGet',
    'files',
    'Get signed upload URLs (the request as a JSON body on GET)',
  ],
  'POST /api/generate-upload-url': ['generateUploadUrl', 'files', 'Get signed upload URLs'],
  'PATCH /api/status': ['updateFileStatus', 'files', "Set a file's status"],
  'GET /api': ['listFiles', 'files', 'List files'],
  'GET /api/access/{fileId}': ['getFileAccessUrl', 'files', "Get a URL to read a file's content"],
  'POST /api/repositories/{repositoryId}/files': [
    'addRepositoryFile',
    'repository-files',
    'Add a file to a repository',
  ],
  'GET /api/repositories/{repositoryId}/files': [
    'listRepositoryFiles',
    'repository-files',
    "List a repository's files",
  ],
  'DELETE /api/repositories/{repositoryId}/files/{fileId}': [
    'removeRepositoryFile',
    'repository-files',
    'Remove a file from a repository',
  ],
  'GET /_emulator/health': ['getHealth', 'admin', "The emulator's health"],
  'GET /_emulator/deliveries': ['listDeliveries', 'admin-deliveries', 'List webhook deliveries'],
  'GET /_emulator/deliveries/stream': [
    'streamDeliveryAttempts',
    'admin-deliveries',
    'Stream delivery attempts as server-sent events',
  ],
  'GET /_emulator/deliveries/{deliveryId}': [
    'getDelivery',
    'admin-deliveries',
    'Get a delivery with its attempts',
  ],
  'POST /_emulator/deliveries/{deliveryId}/redeliver': [
    'redeliver',
    'admin-deliveries',
    'Deliver an event again',
  ],
  'POST /_emulator/deliveries/{deliveryId}/retry': [
    'retryDeliveryNow',
    'admin-deliveries',
    "Make a pending delivery's next attempt now",
  ],
  'POST /_emulator/deliveries/{deliveryId}/cancel': [
    'cancelDeliveryRetries',
    'admin-deliveries',
    "Cancel a pending delivery's retries",
  ],
  'POST /_emulator/deliveries/redeliver': [
    'redeliverMatching',
    'admin-deliveries',
    'Deliver again every delivery the filters match',
  ],
  'GET /_emulator/stream': [
    'streamStoreChanges',
    'admin',
    'Stream store replacements (reset, import) as server-sent events',
  ],
  'GET /_emulator/characters': ['listCharacters', 'admin-messaging', 'List characters'],
  'POST /_emulator/characters': ['createCharacter', 'admin-messaging', 'Create a character'],
  'GET /_emulator/characters/{characterId}': ['getCharacter', 'admin-messaging', 'Get a character'],
  'PATCH /_emulator/characters/{characterId}': [
    'updateCharacter',
    'admin-messaging',
    'Update a character',
  ],
  'GET /_emulator/agents': ['listAgents', 'admin-messaging', 'List agents'],
  'POST /_emulator/agents': ['createAgent', 'admin-messaging', 'Create an agent'],
  'GET /_emulator/agents/{agentId}': ['getAgent', 'admin-messaging', 'Get an agent'],
  'PATCH /_emulator/agents/{agentId}': ['renameAgent', 'admin-messaging', 'Rename an agent'],
  'GET /_emulator/api-keys': ['listApiKeys', 'admin-messaging', 'List messaging API keys'],
  'POST /_emulator/api-keys': ['createApiKey', 'admin-messaging', 'Create a messaging API key'],
  'DELETE /_emulator/api-keys/{apiKeyId}': [
    'deleteApiKey',
    'admin-messaging',
    'Delete a messaging API key',
  ],
  'GET /_emulator/conversations': [
    'listAdminConversations',
    'admin-messaging',
    'List every conversation',
  ],
  'GET /_emulator/conversations/{conversationId}': [
    'getAdminConversation',
    'admin-messaging',
    'Get a conversation',
  ],
  'GET /_emulator/conversations/{conversationId}/messages': [
    'listAdminConversationMessages',
    'admin-messaging',
    "List a conversation's messages",
  ],
  'GET /_emulator/tokens': ['listTokens', 'admin', 'List tokens (metadata, never secrets)'],
  'GET /_emulator/export': ['exportStore', 'admin-store', "Export the emulator's state"],
  'POST /_emulator/import': ['importStore', 'admin-store', "Replace the emulator's state"],
  'POST /_emulator/reset': ['resetStore', 'admin-store', 'Reset the emulator to its seed'],
  'POST /_emulator/events': ['emitEvent', 'admin-deliveries', 'Emit a platform event to a plugin'],
  'GET /_emulator/instances': ['listInstances', 'admin', 'List plugin instances'],
  'GET /_emulator/faults': ['getFaults', 'admin', 'Get the injected delivery faults'],
  'PUT /_emulator/faults': ['setFaults', 'admin', 'Set the injected delivery faults'],
  'GET /_emulator/scenario': ['getScenario', 'admin', 'Get the running scenario'],
  'PUT /_emulator/scenario': ['setScenario', 'admin', 'Set or clear the running scenario'],
  'GET /_emulator/overview': ['getOverview', 'admin', 'Counts and state for the dashboard'],
  'POST /_emulator/dashboard/session': [
    'createDashboardSession',
    'admin-dashboard',
    'Exchange a login code for a dashboard session',
  ],
  'GET /_emulator/dashboard/session': [
    'getDashboardSession',
    'admin-dashboard',
    'Get the current dashboard session',
  ],
  'DELETE /_emulator/dashboard/session': [
    'deleteDashboardSession',
    'admin-dashboard',
    'End the dashboard session',
  ],
  'POST /_emulator/dashboard/login-links': [
    'createDashboardLoginLink',
    'admin-dashboard',
    'Create a dashboard login link',
  ],
  'POST /conversations': [
    'createConversation',
    'messaging',
    'Start a conversation with a character',
  ],
  'GET /conversations/{conversationId}': ['getConversation', 'messaging', 'Get a conversation'],
  'POST /conversations/{conversationId}/messages': [
    'sendMessage',
    'messaging',
    "Send a user's message",
  ],
  'GET /conversations/{conversationId}/messages': [
    'listMessages',
    'messaging',
    "List a conversation's messages, oldest first",
  ],
  'GET /conversations/{conversationId}/events': [
    'streamConversationEvents',
    'messaging',
    "Stream a conversation's events as server-sent events",
  ],
  // Until route schemas carry their metadata, the hold routes' lives beside them (emulator/admin/hold.ts).
  ...Object.fromEntries(
    Object.entries(HOLD_ROUTE_METADATA).map(([key, m]) => [key, [m.operationId, m.tag, m.summary]]),
  ),
};

/** The tags, in order, with what they hold. */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'tokens', description: 'Personal access tokens (management API)' },
  { name: 'plugins', description: 'Plugins (management API)' },
  { name: 'actions', description: "A plugin's actions (management API)" },
  { name: 'external-events', description: "A plugin's external events (management API)" },
  {
    name: 'webhooks',
    description: "A plugin's webhook: verification and signing secret (management API)",
  },
  { name: 'repositories', description: 'Repositories (management API)' },
  { name: 'repository-files', description: "A repository's files (management API)" },
  {
    name: 'instances',
    description: 'Plugin installations on repositories, agents and apps (management API)',
  },
  {
    name: 'agent-messages',
    description:
      "A plugin's replies into conversations, with an installation access token (management API)",
  },
  {
    name: 'files',
    description: 'Uploads: signed upload URLs, statuses, listing and access URLs (management API)',
  },
  {
    name: 'messaging',
    description:
      'The messaging API: conversations with characters, served on its own server (see `servers` on its operations)',
  },
  { name: 'admin', description: 'The emulator admin API (/_emulator)' },
  { name: 'admin-deliveries', description: 'Webhook deliveries and events (emulator admin API)' },
  {
    name: 'admin-messaging',
    description: 'Characters, agents, API keys and conversations (emulator admin API)',
  },
  {
    name: 'admin-store',
    description: "The emulator's state: export, import, reset (emulator admin API)",
  },
  {
    name: 'admin-dashboard',
    description: 'Dashboard sessions and login links (emulator admin API)',
  },
];

const idOf = '$response.body#/data/id';

/** What a link's operation does with what was just made (`the {made}`: "the plugin just made"), by operationId. */
const LINK_DESCRIPTIONS: Readonly<Record<string, string>> = {
  getPlugin: 'Get {made}',
  updatePlugin: 'Update {made}',
  deletePlugin: 'Delete {made}',
  listActions: 'List the actions of {made}',
  createAction: 'Create an action on {made}',
  createExternalEvent: 'Create an external event on {made}',
  verifyWebhook: 'Send the WEBHOOK_CHALLENGE to the webhook URL of {made}',
  rotateWebhookSecret: 'Rotate the webhook signing secret of {made}',
  getRepository: 'Get {made}',
  listRepositoryFiles: 'List the files of {made}',
  addRepositoryFile: 'Add an uploaded file to {made}',
  installDataProvider: 'Install a plugin as a data provider on {made}',
  listDataProviders: 'List the data providers of {made}',
  getAction: 'Get {made}',
  updateAction: 'Update {made}',
  deleteAction: 'Delete {made}',
  getExternalEvent: 'Get {made}',
  updateExternalEvent: 'Update {made}',
  deleteExternalEvent: 'Delete {made}',
  uninstallDataProvider: 'Uninstall {made}',
  uninstallAgentPlugin: 'Uninstall {made}',
  uninstallAppPlugin: 'Uninstall {made}',
  removeRepositoryFile: 'Remove {made}',
  getFileAccessUrl: 'Get a URL to read the first file of {made}',
  getCharacter: 'Get {made}',
  updateCharacter: 'Update {made}',
  getAgent: 'Get {made}',
  renameAgent: 'Rename {made}',
  deleteApiKey: 'Delete {made}',
  getConversation: 'Get {made}',
  sendMessage: "Send a user's message into {made}",
  listMessages: 'List the messages of {made}',
  streamConversationEvents: 'Stream the events of {made}',
};

const links = (target: string, operationIds: string[], parameters: Record<string, string>) =>
  Object.fromEntries(
    operationIds.map((operationId) => {
      const template = LINK_DESCRIPTIONS[operationId];
      if (!template) throw new Error(`no link description for ${operationId}`);
      const description = template.replace('{made}', `the ${target} just made`);
      return [operationId, { operationId, parameters, description }];
    }),
  );

/** Links from each create operation to the operations on what it made. */
const LINKS: Readonly<Record<string, ReturnType<typeof links>>> = (() => {
  const plugin = links(
    'plugin',
    [
      'getPlugin',
      'updatePlugin',
      'deletePlugin',
      'listActions',
      'createAction',
      'createExternalEvent',
      'verifyWebhook',
      'rotateWebhookSecret',
    ],
    { pluginId: idOf },
  );
  const repository = links(
    'repository',
    [
      'getRepository',
      'listRepositoryFiles',
      'addRepositoryFile',
      'installDataProvider',
      'listDataProviders',
    ],
    { repositoryId: idOf },
  );
  const definition = (kind: string, param: string) =>
    links(kind, [`get${kind}`, `update${kind}`, `delete${kind}`], {
      pluginId: '$request.path.pluginId',
      [param]: '$response.body#/data/name',
    });
  const instance = (operationId: string, entityParam: string) =>
    links('installation', [operationId], {
      [entityParam]: `$request.path.${entityParam}`,
      pluginInstanceId: idOf,
    });
  return {
    'POST /api/plugins': plugin,
    'POST /api/orgs/{orgId}/plugins': plugin,
    'POST /api/plugins/{pluginId}/actions': definition('Action', 'name'),
    'POST /api/plugins/{pluginId}/external-events': definition('ExternalEvent', 'eventName'),
    'POST /api/repositories': repository,
    'POST /api/orgs/{orgId}/repositories': repository,
    'POST /api/repositories/{repositoryId}/data-providers': instance(
      'uninstallDataProvider',
      'repositoryId',
    ),
    'POST /api/agents/{agentId}/plugins': instance('uninstallAgentPlugin', 'agentId'),
    'POST /api/apps/{appId}/plugins': instance('uninstallAppPlugin', 'appId'),
    'POST /api/repositories/{repositoryId}/files': links(
      'repository file',
      ['removeRepositoryFile'],
      { repositoryId: '$request.path.repositoryId', fileId: '$response.body#/data/file/id' },
    ),
    'POST /api/generate-upload-url': links('upload', ['getFileAccessUrl'], {
      fileId: '$response.body#/data/files/0/fileRecord/id',
    }),
    'POST /_emulator/characters': links('character', ['getCharacter', 'updateCharacter'], {
      characterId: idOf,
    }),
    'POST /_emulator/agents': links('agent', ['getAgent', 'renameAgent'], { agentId: idOf }),
    'POST /_emulator/api-keys': links('API key', ['deleteApiKey'], { apiKeyId: idOf }),
    'POST /conversations': links(
      'conversation',
      ['getConversation', 'sendMessage', 'listMessages', 'streamConversationEvents'],
      { conversationId: idOf },
    ),
  };
})();

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The `text/event-stream` bodies: a string of frames, described. */
const EVENT_STREAM_FORMAT =
  'Server-sent events (text/event-stream, UTF-8): frames separated by a blank line, each made of an `event: <name>` and a `data: <one line of JSON>` line, and an `id: <id>` line only where the response says events have ids; lines starting with `:` are comments (keep-alives). The data of each event is described by `x-event-data` on this media type.';

/** Completes the document built from the route schemas (see the top of this file). */
export function describeOperations(doc: OpenApiDocument): void {
  // `/api/` is fastify's spelling of the prefix's own route; clients call `/api` (both are served).
  if (doc.paths['/api/'] && !doc.paths['/api']) {
    doc.paths['/api'] = doc.paths['/api/'];
    delete doc.paths['/api/'];
  }
  for (const [path, item] of Object.entries<OpenApiNode>(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const known = OPERATIONS[key];
      if (known) {
        const [operationId, tag, summary] = known;
        Object.assign(operation, {
          operationId,
          summary,
          tags: [tag],
          description: DESCRIPTIONS[key],
        });
      }
      // @fastify/swagger marks every body required; a body schema that takes null takes no body at all (fastify reads none as null).
      const bodyTypes = operation.requestBody?.content?.['application/json']?.schema?.type;
      if (Array.isArray(bodyTypes) && bodyTypes.includes('null'))
        operation.requestBody.required = false;
      for (const parameter of operation.parameters ?? []) {
        // Comma lists: `style`/`explode` live on the parameter, not in its schema.
        for (const field of ['style', 'explode'] as const) {
          if (parameter.schema && field in parameter.schema) {
            parameter[field] = parameter.schema[field];
            delete parameter.schema[field];
          }
        }
      }
      for (const response of Object.values<OpenApiNode>(operation.responses ?? {})) {
        const stream = response?.content?.['text/event-stream'];
        if (stream && stream.schema?.type !== 'string') {
          stream['x-event-data'] = stream.schema;
          stream.schema = { type: 'string' };
        }
        if (stream) stream.schema.description = EVENT_STREAM_FORMAT;
      }
      const linked = LINKS[key];
      if (linked) {
        const success = Object.keys(operation.responses ?? {}).find((code) => code.startsWith('2'));
        if (success) operation.responses[success].links = linked;
      }
    }
    // As the emulator's `Allow` gives them: HEAD with GET, in its order.
    const allowed = ALLOW_ORDER.filter(
      (method) => item[method.toLowerCase()] || (method === 'HEAD' && item.get),
    );
    item.description = `Other methods are answered 405 with \`Allow: ${allowed.join(', ')}\`.`;
  }
  // GET /api/generate-upload-url reads the same JSON body as POST (OpenAPI 3.1 allows a GET body; POST is for clients that cannot send one).
  const getUpload = doc.paths['/api/generate-upload-url']?.get;
  const postUpload = doc.paths['/api/generate-upload-url']?.post;
  if (getUpload && postUpload?.requestBody && !getUpload.requestBody)
    getUpload.requestBody = structuredClone(postUpload.requestBody);
  hoistTitledSchemas(doc);
  renameDependencies(doc);
}

/** Draft 7's `dependencies` (lists of property names), as JSON Schema 2020-12 spells it: `dependentRequired`. */
function renameDependencies(node: OpenApiNode): void {
  if (Array.isArray(node)) {
    for (const item of node) renameDependencies(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const deps = node.dependencies;
  if (
    deps &&
    typeof deps === 'object' &&
    !Array.isArray(deps) &&
    Object.values(deps).every(Array.isArray) &&
    node.dependentRequired === undefined
  ) {
    node.dependentRequired = deps;
    delete node.dependencies;
  }
  for (const value of Object.values(node)) renameDependencies(value);
}

/** A title as a component name (letters, digits, `.`, `-`, `_`): `WEBHOOK_CHALLENGE event` is `WebhookChallengeEvent`. */
function componentName(title: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(title)) return title;
  return title
    .replace(/[A-Za-z0-9]+/g, (word) => word[0].toUpperCase() + word.slice(1).toLowerCase())
    .replace(/[^A-Za-z0-9]/g, '');
}

/** One title per schema (generators name types by it): a titled schema becomes a `$ref`; another schema with a taken title is numbered. */
function hoistTitledSchemas(doc: OpenApiDocument): void {
  doc.components.schemas ??= {};
  const components: Record<string, OpenApiNode> = doc.components.schemas;
  const taken = new Map<string, string>(
    Object.entries(components).map(([name, schema]) => [name, JSON.stringify(schema)]),
  );
  const visit = (node: OpenApiNode, isSchema: boolean): OpenApiNode => {
    if (Array.isArray(node)) return node.map((n) => visit(n, isSchema));
    if (node === null || typeof node !== 'object') return node;
    for (const [key, value] of Object.entries<OpenApiNode>(node)) {
      // Below a schema every object is a schema, except maps of them, `definitions`, `dependentRequired` and data (left as it is).
      // `x-event-data` (an SSE stream's data) is left as it is: tools do not read extensions.
      if (isSchema && ['examples', 'example', 'default', 'const', 'enum'].includes(key)) continue;
      if (
        isSchema &&
        ['properties', 'patternProperties', '$defs', 'dependentSchemas'].includes(key) &&
        value &&
        typeof value === 'object'
      ) {
        for (const [name, sub] of Object.entries(value)) value[name] = visit(sub, true);
      } else
        node[key] = visit(
          value,
          key === 'schema' || (isSchema && key !== 'definitions' && key !== 'dependentRequired'),
        );
    }
    if (!isSchema || typeof node.title !== 'string') return node;
    const text = JSON.stringify(node);
    let name = componentName(node.title);
    if (!taken.has(name)) {
      components[name] = node;
      taken.set(name, text);
    } else if (taken.get(name) !== text) {
      let n = 2;
      while (taken.has(`${name}${n}`) && taken.get(`${name}${n}`) !== text) n++;
      node.title = `${node.title} ${n}`;
      name = `${name}${n}`;
      components[name] = node;
      taken.set(name, JSON.stringify(node));
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  for (const item of Object.values<OpenApiNode>(doc.paths)) {
    for (const method of METHODS) if (item[method]) visit(item[method], false);
  }
  // Webhooks keep their event schemas whole: one title each, and receivers read them alone.
}
