// The probe journey: a fixed list of requests, the same on the real platform (`parity record`) and on
// the emulator (`parity check`). Every step is non-destructive: it creates only what it names with the
// run's name (`plugsmith-parity-<random>`) and the journey deletes what the platform lets it delete.
// docs/parity.md lists the steps; `behaviours` names the paragraphs of docs/emulator-behaviour.md a
// step touches (their bold titles), for the check's report.

/** Names a step's path and body may use: the target's (`orgId`…) and those earlier steps kept. */
export type Names = Record<string, string>;

/** Which credential a step sends. */
export type Credential = 'user' | 'api-key' | 'invalid' | 'none';

/** One request of the journey. */
export interface JourneyStep {
  step: string;
  api: 'management' | 'messaging';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path with `:name` placeholders, and any query (its values constants or placeholders too). */
  path: string;
  body?: (names: Names) => unknown;
  credential: Credential;
  /** Names the step needs; without one it is skipped, saying which. */
  needs?: string[];
  /** Names to keep from a 2xx answer: name -> shape path of a string (`data.id`, `data[0].id`). */
  keep?: Record<string, string>;
  /** Paths whose values are recorded and compared (enums the spec names, booleans, the journey's own counts). */
  stable?: string[];
  /** Lists hold other records of the user's org: only the journey's own records are shaped. */
  ownItemsOnly?: boolean;
  /** A step that opens the conversation's event stream rather than sending one request. */
  stream?: true;
  /** After this step, wait until the character's reply is complete (polling the messages). */
  awaitReply?: true;
  /** Paragraphs of docs/emulator-behaviour.md (their bold titles) whose behaviour the step touches. */
  behaviours: string[];
}

const DESCRIPTION = 'Created by `plugsmith parity record`; removed at the end of the run';
const WEBHOOK = 'https://plugsmith-parity.invalid/webhook';
const PAGINATION_INDEX = [
  'meta.pagination.type',
  'meta.pagination.page',
  'meta.pagination.limit',
  'meta.pagination.total',
  'meta.pagination.totalPages',
  'meta.pagination.hasNext',
  'meta.pagination.hasPrev',
];
const OBJECT_SCHEMA = {
  type: 'object',
  properties: { region: { type: 'string' } },
};

function plugin(names: Names, type: string, extra: Record<string, unknown> = {}) {
  const dataProvider = type === 'DATA_PROVIDER';
  return {
    name: names.runName,
    description: DESCRIPTION,
    events: dataProvider ? ['PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED'] : ['AGENT_MESSAGE_RECEIVED'],
    inputsSchema: OBJECT_SCHEMA,
    isPublic: false,
    scopes: dataProvider ? ['REPOSITORY_FILES_READ'] : ['AGENT_MESSAGE_WRITE'],
    tags: ['plugsmith-parity', names.runTag],
    type,
    webhookUrl: WEBHOOK,
    ...extra,
  };
}

function definitionSteps(
  noun: 'actions' | 'external-events',
  param: string,
  body: Record<string, unknown>,
): JourneyStep[] {
  const base = `/api/plugins/:pluginId/${noun}`;
  const item = `${base}/:${param}`;
  const behaviours = ['Actions and external events', 'Envelope and errors'];
  const needs = ['pluginId'];
  return [
    {
      step: `${noun}.create`,
      api: 'management',
      method: 'POST',
      path: base,
      body: () => body,
      credential: 'user',
      needs,
      keep: { [param]: 'data.name' },
      behaviours: [...behaviours, 'Schemas'],
    },
    {
      step: `${noun}.list`,
      api: 'management',
      method: 'GET',
      path: base,
      credential: 'user',
      needs,
      behaviours,
    },
    {
      step: `${noun}.get`,
      api: 'management',
      method: 'GET',
      path: item,
      credential: 'user',
      needs: [...needs, param],
      behaviours,
    },
    {
      step: `${noun}.update`,
      api: 'management',
      method: 'PUT',
      path: item,
      body: () => ({ title: 'plugsmith parity (updated)' }),
      credential: 'user',
      needs: [...needs, param],
      behaviours,
    },
    {
      step: `${noun}.create-duplicate`,
      api: 'management',
      method: 'POST',
      path: base,
      body: () => body,
      credential: 'user',
      needs: [...needs, param],
      stable: ['error.error'],
      behaviours,
    },
    {
      step: `${noun}.delete`,
      api: 'management',
      method: 'DELETE',
      path: item,
      credential: 'user',
      needs: [...needs, param],
      behaviours,
    },
  ];
}

/** The journey, in order. */
export const JOURNEY: JourneyStep[] = [
  // Plugins: two of the run's own, so that the lists below have a second page.
  {
    step: 'plugins.create',
    api: 'management',
    method: 'POST',
    path: '/api/orgs/:orgId/plugins',
    body: (names) => plugin(names, 'DATA_PROVIDER'),
    credential: 'user',
    keep: { pluginId: 'data.id' },
    stable: ['data.type', 'data.isPublic', 'data.webhookUrlIsVerified'],
    behaviours: ['Envelope and errors', 'Plugins', 'Schemas'],
  },
  {
    step: 'plugins.create-with-org-in-body',
    api: 'management',
    method: 'POST',
    path: '/api/plugins',
    body: (names) => plugin(names, 'EVENT_HANDLER', { orgId: names.orgId }),
    credential: 'user',
    keep: { secondPluginId: 'data.id' },
    stable: ['data.type', 'data.isPublic', 'data.webhookUrlIsVerified'],
    behaviours: ['Plugins'],
  },
  {
    step: 'plugins.get',
    api: 'management',
    method: 'GET',
    path: '/api/plugins/:pluginId',
    credential: 'user',
    needs: ['pluginId'],
    stable: ['data.type', 'data.webhookUrlIsVerified'],
    behaviours: ['Plugins'],
  },
  {
    step: 'plugins.update-webhook',
    api: 'management',
    method: 'PUT',
    path: '/api/plugins/:pluginId',
    body: () => ({ description: `${DESCRIPTION} (updated)`, webhookUrl: `${WEBHOOK}-2` }),
    credential: 'user',
    needs: ['pluginId'],
    stable: ['data.webhookUrlIsVerified'],
    behaviours: ['Plugins'],
  },
  {
    step: 'plugins.list.index-page-1',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/plugins?tags=:runTag&@limit=1&@page=1',
    credential: 'user',
    needs: ['pluginId', 'secondPluginId'],
    keep: { cursor: 'data[0].id' },
    stable: PAGINATION_INDEX,
    behaviours: ['Query system'],
  },
  {
    step: 'plugins.list.index-page-2',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/plugins?tags=:runTag&@limit=1&@page=2',
    credential: 'user',
    needs: ['pluginId', 'secondPluginId'],
    stable: PAGINATION_INDEX,
    behaviours: ['Query system'],
  },
  {
    step: 'plugins.list.cursor',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/plugins?tags=:runTag&@limit=1&@cursor=:cursor',
    credential: 'user',
    needs: ['cursor'],
    stable: ['meta.pagination.type', 'meta.pagination.limit', 'meta.pagination.hasNext'],
    behaviours: ['Query system'],
  },
  {
    step: 'plugins.list.filter-and-sort',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/plugins?tags=:runTag&type=DATA_PROVIDER,EVENT_HANDLER&isPublic=false&@sortBy=name,createdAt&@sortOrder=asc',
    credential: 'user',
    needs: ['pluginId', 'secondPluginId'],
    stable: PAGINATION_INDEX,
    behaviours: ['Query system'],
  },
  {
    step: 'plugins.list.search',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/plugins?@search=:runTag&@limit=100',
    credential: 'user',
    needs: ['pluginId'],
    ownItemsOnly: true,
    stable: ['meta.pagination.type'],
    behaviours: ['Query system'],
  },
  {
    step: 'plugins.marketplace',
    api: 'management',
    method: 'GET',
    path: '/api/plugins/marketplace?tags=:runTag',
    credential: 'user',
    stable: ['meta.pagination.type', 'meta.pagination.total'],
    behaviours: ['Query system', 'Plugins'],
  },
  // Errors the spec names: 400 (query and body), 401, 403, 404.
  {
    step: 'errors.invalid-query',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/plugins?@limit=not-a-number',
    credential: 'user',
    stable: ['error.message'],
    behaviours: ['Envelope and errors', 'Query system'],
  },
  {
    step: 'errors.invalid-body',
    api: 'management',
    method: 'POST',
    path: '/api/orgs/:orgId/plugins',
    body: (names) => ({ ...plugin(names, 'NOT_A_PLUGIN_TYPE'), inputsSchema: 'not a schema' }),
    credential: 'user',
    // Kept so that a platform that accepted it anyway has the plugin removed at the end.
    keep: { strayPluginId: 'data.id' },
    behaviours: ['Envelope and errors', 'Plugins'],
  },
  {
    step: 'errors.unauthorized',
    api: 'management',
    method: 'GET',
    path: '/api/plugins/:pluginId',
    credential: 'invalid',
    needs: ['pluginId'],
    behaviours: ['Envelope and errors', 'Authentication'],
  },
  {
    step: 'errors.forbidden-org',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:otherOrgId/repositories',
    credential: 'user',
    needs: ['otherOrgId'],
    behaviours: ['Envelope and errors', 'Roles', 'Repositories'],
  },
  {
    step: 'errors.not-found',
    api: 'management',
    method: 'GET',
    path: '/api/plugins/:missingId',
    credential: 'user',
    behaviours: ['Envelope and errors'],
  },
  {
    step: 'tokens.create-unauthenticated',
    api: 'management',
    method: 'POST',
    path: '/api/tokens',
    body: (names) => ({ name: names.runName }),
    credential: 'none',
    behaviours: ['Tokens', 'Authentication'],
  },
  // Actions and external events of the first plugin.
  ...definitionSteps('actions', 'actionName', {
    name: 'plugsmith_parity_action',
    title: 'plugsmith parity',
    description: DESCRIPTION,
    argsSchema: OBJECT_SCHEMA,
    returnSchema: { type: 'object' },
  }),
  ...definitionSteps('external-events', 'eventName', {
    name: 'plugsmith_parity_event',
    title: 'plugsmith parity',
    description: DESCRIPTION,
    payloadSchema: OBJECT_SCHEMA,
  }),
  // Repositories: read only (the spec offers no way to delete one), the org's first.
  {
    step: 'repositories.list',
    api: 'management',
    method: 'GET',
    path: '/api/orgs/:orgId/repositories?@limit=1',
    credential: 'user',
    keep: { repositoryId: 'data[0].id' },
    stable: ['meta.pagination.type', 'meta.pagination.limit'],
    behaviours: ['Repositories', 'Query system'],
  },
  {
    step: 'repositories.get',
    api: 'management',
    method: 'GET',
    path: '/api/repositories/:repositoryId',
    credential: 'user',
    needs: ['repositoryId'],
    behaviours: ['Repositories'],
  },
  {
    step: 'repositories.get-missing',
    api: 'management',
    method: 'GET',
    path: '/api/repositories/:missingId',
    credential: 'user',
    behaviours: ['Repositories', 'Envelope and errors'],
  },
  {
    step: 'repositories.files',
    api: 'management',
    method: 'GET',
    path: '/api/repositories/:repositoryId/files',
    credential: 'user',
    needs: ['repositoryId'],
    ownItemsOnly: true,
    behaviours: ['Repository files'],
  },
  {
    step: 'data-providers.list',
    api: 'management',
    method: 'GET',
    path: '/api/repositories/:repositoryId/data-providers',
    credential: 'user',
    needs: ['repositoryId'],
    ownItemsOnly: true,
    behaviours: ['Plugin instances'],
  },
  {
    step: 'data-providers.add-unverified',
    api: 'management',
    method: 'POST',
    path: '/api/repositories/:repositoryId/data-providers',
    body: (names) => ({
      name: names.runName,
      pluginId: names.pluginId,
      events: ['PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
    }),
    credential: 'user',
    needs: ['repositoryId', 'pluginId'],
    // Kept so that a platform that installs an unverified plugin anyway has the instance removed.
    keep: { instanceId: 'data.id' },
    behaviours: ['Plugin instances', 'Envelope and errors'],
  },
  // Uploads: one file record under the org, marked FAILED (nothing is uploaded).
  {
    step: 'uploads.generate-upload-url',
    api: 'management',
    method: 'GET',
    path: '/api/generate-upload-url',
    body: (names) => ({
      files: [
        {
          fileName: `${names.runName}.txt`,
          contentType: 'text/plain',
          fileSize: 16,
          isPublic: false,
        },
      ],
      folder: names.runName,
      parentId: names.orgId,
      parentType: 'ORG',
    }),
    credential: 'user',
    keep: { fileId: 'data.files[0].fileRecord.id' },
    behaviours: ['Uploads'],
  },
  {
    step: 'uploads.invalid',
    api: 'management',
    method: 'GET',
    path: '/api/generate-upload-url',
    body: () => ({ files: [] }),
    credential: 'user',
    behaviours: ['Uploads', 'Envelope and errors'],
  },
  {
    step: 'uploads.status-failed',
    api: 'management',
    method: 'PATCH',
    path: '/api/status',
    body: (names) => ({
      fileId: names.fileId,
      status: 'FAILED',
      errorMessage: 'plugsmith parity probe: nothing was uploaded',
    }),
    credential: 'user',
    needs: ['fileId'],
    stable: ['data.status'],
    behaviours: ['Uploads'],
  },
  {
    step: 'uploads.access',
    api: 'management',
    method: 'GET',
    path: '/api/access/:fileId?expiresIn=60',
    credential: 'user',
    needs: ['fileId'],
    behaviours: ['Uploads'],
  },
  {
    step: 'uploads.list',
    api: 'management',
    method: 'GET',
    path: '/api/?parentId=:orgId&parentType=ORG',
    credential: 'user',
    needs: ['fileId'],
    ownItemsOnly: true,
    behaviours: ['Uploads'],
  },
  // Messaging: a conversation with the character, its stream, one message and the reply.
  {
    step: 'conversations.create',
    api: 'messaging',
    method: 'POST',
    path: '/conversations',
    body: (names) => ({ characterId: names.characterId }),
    credential: 'api-key',
    needs: ['characterId'],
    keep: { conversationId: 'data.id' },
    behaviours: ['Messaging'],
  },
  {
    step: 'conversations.get',
    api: 'messaging',
    method: 'GET',
    path: '/conversations/:conversationId',
    credential: 'api-key',
    needs: ['conversationId'],
    behaviours: ['Messaging'],
  },
  {
    step: 'conversations.events',
    api: 'messaging',
    method: 'GET',
    path: '/conversations/:conversationId/events',
    credential: 'api-key',
    needs: ['conversationId'],
    stream: true,
    behaviours: ['Conversation stream'],
  },
  {
    step: 'messages.send',
    api: 'messaging',
    method: 'POST',
    path: '/conversations/:conversationId/messages',
    body: () => ({ content: 'plugsmith parity probe', type: 'TEXT', attachments: [] }),
    credential: 'api-key',
    needs: ['conversationId'],
    awaitReply: true,
    stable: ['data.type', 'data.isStreaming'],
    behaviours: ['Messaging', 'Character replies'],
  },
  {
    step: 'messages.list',
    api: 'messaging',
    method: 'GET',
    path: '/conversations/:conversationId/messages',
    credential: 'api-key',
    needs: ['conversationId'],
    behaviours: ['Messaging', 'Character replies'],
  },
  {
    step: 'messaging.unauthorized',
    api: 'messaging',
    method: 'GET',
    path: '/conversations/:conversationId',
    credential: 'invalid',
    needs: ['conversationId'],
    behaviours: ['Messaging', 'Envelope and errors'],
  },
  {
    step: 'messaging.not-found',
    api: 'messaging',
    method: 'GET',
    path: '/conversations/:missingId',
    credential: 'api-key',
    needs: ['apiKey'],
    behaviours: ['Messaging', 'Envelope and errors'],
  },
  // Removal: part of the journey, so its answers are compared too.
  {
    step: 'plugins.delete',
    api: 'management',
    method: 'DELETE',
    path: '/api/plugins/:pluginId',
    credential: 'user',
    needs: ['pluginId'],
    behaviours: ['Plugins'],
  },
  {
    step: 'plugins.get-deleted',
    api: 'management',
    method: 'GET',
    path: '/api/plugins/:pluginId',
    credential: 'user',
    needs: ['pluginId'],
    behaviours: ['Plugins', 'Envelope and errors'],
  },
];

/** The synthetic exchanges of the stream step: the first and the last `CHARACTER_MESSAGE_SENT` packet. */
export const STREAM_PACKETS = {
  first: 'conversations.events.first-packet',
  last: 'conversations.events.last-packet',
} as const;
