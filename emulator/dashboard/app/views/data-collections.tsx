import { currentWorkspace } from '../api.js';
import {
  CHARACTER_ENGINES,
  EVENT_KINDS,
  FILE_STATUSES,
  INSTANCE_ENTITY_TYPES,
  PARENT_TYPES,
  PLUGIN_TYPES,
} from '#contract/enum-values';
import { installsPath, isInstallEntityType } from '#contract/installs';
import type { CollectionConfig, DataRecord, DataContext } from './data-collection.js';
import { WebhookSecret } from './plugin-secret.js';
import { humanSize } from '../format.js';

// The Data page's collections: one small config each for the generic list and record views. Lists
// go through the platform's management API with the workspace token where it lists them, else the
// admin API (every org: agents, characters, API keys, tokens, instances, conversations).

const enc = encodeURIComponent;
const parentId = (ctx: DataContext) => enc(ctx.parent?.id ?? '');
const stamps = ['createdAt', 'updatedAt'];
const bool = ['true', 'false'];
const yesNo = (field: string) => (r: DataRecord) => (r[field] === true ? 'yes' : 'no');

/** Where an instance is uninstalled: the route of its kind of entity (an app's for a kind the dashboard does not know). */
function instancePath(r: DataRecord): string {
  const entityType = isInstallEntityType(r.entityType) ? r.entityType : 'APP';
  return `${installsPath(entityType, enc(String(r.entityId)))}/${enc(r.id)}`;
}

const instanceColumns = [
  { field: 'name', label: 'Name' },
  { field: 'entityType', label: 'On' },
  { field: 'entityId', label: 'Entity' },
  { field: 'events', label: 'Events' },
  { field: 'scopes', label: 'Scopes' },
  { field: 'eventDispatchMode', label: 'Dispatch' },
];

const instances: CollectionConfig = {
  key: 'instances',
  label: 'Instances',
  noun: 'instance',
  target: 'admin',
  listPath: (ctx) => `/instances?pluginId=${parentId(ctx)}`,
  sortFields: ['createdAt', 'updatedAt', 'name', 'entityType'],
  filters: [{ field: 'entityType', label: 'Entity type', options: [...INSTANCE_ENTITY_TYPES] }],
  columns: instanceColumns,
  remove: { target: 'api', path: instancePath, label: 'Uninstall instance' },
  empty: (ctx) => (
    <>
      Not installed anywhere yet: install it on the{' '}
      <a href={`#/install/${parentId(ctx)}`}>Verify &amp; install</a> page, or with{' '}
      <code>plugsmith handlers add</code>, <code>plugsmith providers add</code> or{' '}
      <code>plugsmith apps add</code> (by its type).
    </>
  ),
};

function definitions(
  key: 'actions' | 'external-events',
  noun: string,
  schemaFields: string[],
): CollectionConfig {
  const item = (r: DataRecord, ctx: DataContext) =>
    `/plugins/${parentId(ctx)}/${key}/${enc(String(r.name))}`;
  return {
    key,
    label: key === 'actions' ? 'Actions' : 'External events',
    noun,
    target: 'api',
    listPath: (ctx) => `/plugins/${parentId(ctx)}/${key}`,
    sortFields: ['createdAt', 'updatedAt', 'name', 'title'],
    filters: [{ field: 'name', label: `${noun[0].toUpperCase()}${noun.slice(1)} name` }],
    columns: [
      { field: 'name', label: 'Name' },
      { field: 'title', label: 'Title' },
      { field: 'description', label: 'Description' },
      { field: 'updatedAt', label: 'Updated' },
    ],
    create: {
      path: (ctx) => `/plugins/${parentId(ctx)}/${key}`,
      template: () => ({
        name: key === 'actions' ? 'get_forecast' : 'storm_warning',
        title: '',
        description: '',
        [schemaFields[0]]: { type: 'object', properties: {} },
      }),
    },
    edit: { method: 'PUT', path: item, fields: ['title', 'description', ...schemaFields] },
    remove: { path: item },
    empty: (ctx) => (
      <>
        No {noun}s yet: use New {noun} above, run{' '}
        <code>
          plugsmith {key === 'actions' ? 'actions' : 'events'} create{' '}
          {ctx.parent?.id ?? '<pluginId>'} --name …
        </code>
        , or declare them in the project's <code>plugsmith.json</code> and run{' '}
        <code>plugsmith deploy</code>.
      </>
    ),
  };
}

const plugins: CollectionConfig = {
  key: 'plugins',
  label: 'Plugins',
  noun: 'plugin',
  target: 'api',
  note: "The workspace org's plugins (GET /api/orgs/:orgId/plugins).",
  empty: () => (
    <>
      No plugins yet: use New plugin above, run{' '}
      <code>
        plugsmith plugins create --name Weather --type EVENT_HANDLER --webhook-url
        http://127.0.0.1:3000/webhook
      </code>
      , or start a project with <code>plugsmith init</code> and run <code>plugsmith dev</code> in
      it.
    </>
  ),
  listPath: (ctx) => `/orgs/${enc(ctx.orgId)}/plugins`,
  sortFields: [...stamps, 'name', 'type'],
  filters: [
    { field: 'type', label: 'Type', options: [...PLUGIN_TYPES] },
    { field: 'isPublic', label: 'Public', options: bool },
    { field: 'webhookUrlIsVerified', label: 'Webhook verified', options: bool },
    { field: 'events', label: 'Event', options: [...EVENT_KINDS] },
  ],
  columns: [
    { field: 'name', label: 'Name' },
    { field: 'id', label: 'Id' },
    { field: 'type', label: 'Type' },
    { field: 'webhookUrl', label: 'Webhook URL' },
    { field: 'webhookUrlIsVerified', label: 'Verified', render: yesNo('webhookUrlIsVerified') },
    { field: 'isPublic', label: 'Public', render: yesNo('isPublic') },
    { field: 'updatedAt', label: 'Updated' },
  ],
  create: {
    path: (ctx) => `/orgs/${enc(ctx.orgId)}/plugins`,
    template: () => ({
      name: 'My plugin',
      description: '',
      type: 'EVENT_HANDLER',
      webhookUrl: 'http://127.0.0.1:3000/webhook',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      inputsSchema: { type: 'object', properties: {} },
    }),
  },
  edit: {
    method: 'PUT',
    path: (r) => `/plugins/${enc(r.id)}`,
    fields: [
      'name',
      'description',
      'type',
      'webhookUrl',
      'events',
      'scopes',
      'tags',
      'inputsSchema',
      'isPublic',
    ],
  },
  remove: { path: (r) => `/plugins/${enc(r.id)}` },
  masked: ['webhookSecret'],
  extra: (record, onRecord) => <WebhookSecret plugin={record} onRotated={onRecord} />,
  children: [
    definitions('actions', 'action', ['argsSchema', 'returnSchema']),
    definitions('external-events', 'external event', ['payloadSchema']),
    instances,
  ],
};

const fileColumns = [
  { field: 'fileName', label: 'File name' },
  { field: 'status', label: 'Status' },
  {
    field: 'fileSize',
    label: 'Size',
    render: (r: DataRecord) => (typeof r.fileSize === 'number' ? humanSize(r.fileSize) : '—'),
  },
  { field: 'contentType', label: 'Content type' },
  { field: 'folder', label: 'Folder' },
  { field: 'updatedAt', label: 'Updated' },
];
const fileSorts = [...stamps, 'fileName', 'fileSize', 'status'];
const fileFilters = [
  { field: 'status', label: 'Status', options: [...FILE_STATUSES] },
  { field: 'contentType', label: 'Content type' },
];

const repositoryFiles: CollectionConfig = {
  key: 'files',
  label: 'Files',
  noun: 'file',
  target: 'api',
  listPath: (ctx) => `/repositories/${parentId(ctx)}/files`,
  sortFields: fileSorts,
  filters: fileFilters,
  columns: fileColumns,
  create: {
    path: (ctx) => `/repositories/${parentId(ctx)}/files`,
    template: () => ({ fileId: 'file_…' }),
    label: 'Attach a file',
  },
  empty: (ctx) => (
    <>
      No files in this repository yet: upload one on the <a href="#/uploads">Uploads</a> page into
      the repository, attach an uploaded file with Attach a file above, or run{' '}
      <code>plugsmith repos files add {ctx.parent?.id ?? '<repositoryId>'} &lt;fileId&gt;</code>.
    </>
  ),
  remove: {
    path: (r, ctx) => `/repositories/${parentId(ctx)}/files/${enc(r.id)}`,
    label: 'Detach file',
  },
};

const dataProviders: CollectionConfig = {
  key: 'data-providers',
  label: 'Data providers',
  noun: 'data provider',
  target: 'api',
  listPath: (ctx) => installsPath('REPOSITORY', parentId(ctx)),
  sortFields: [...stamps, 'name'],
  filters: [],
  columns: instanceColumns.filter((c) => c.field !== 'entityType' && c.field !== 'entityId'),
  empty: (ctx) => (
    <>
      No data provider on this repository yet: install a DATA_PROVIDER plugin on the{' '}
      <a href="#/install">Verify &amp; install</a> page, or run{' '}
      <code>
        plugsmith providers add {ctx.parent?.id ?? '<repositoryId>'} --plugin &lt;pluginId&gt;
      </code>
      .
    </>
  ),
  remove: {
    path: (r, ctx) => `${installsPath('REPOSITORY', parentId(ctx))}/${enc(r.id)}`,
    label: 'Uninstall data provider',
  },
};

const repositories: CollectionConfig = {
  key: 'repositories',
  label: 'Repositories',
  noun: 'repository',
  target: 'api',
  note: "The workspace org's repositories. The API creates them; it neither edits nor deletes them.",
  empty: () => (
    <>
      No repositories yet: use New repository above, or run{' '}
      <code>plugsmith repos create --name docs</code>.
    </>
  ),
  listPath: (ctx) => `/orgs/${enc(ctx.orgId)}/repositories`,
  sortFields: [...stamps, 'name'],
  filters: [],
  columns: [
    { field: 'name', label: 'Name' },
    { field: 'description', label: 'Description' },
    { field: 'createdAt', label: 'Created' },
  ],
  create: {
    path: (ctx) => `/orgs/${enc(ctx.orgId)}/repositories`,
    template: () => ({ name: 'Docs', description: '' }),
  },
  children: [dataProviders, repositoryFiles],
};

const uploads: CollectionConfig = {
  key: 'uploads',
  label: 'Uploads',
  noun: 'file',
  target: 'api',
  note: 'Files of the upload interface (GET /api). Editing changes the status (PATCH /api/status); upload new files on the Uploads page.',
  empty: () => (
    <>
      No uploads yet: drop files on the <a href="#/uploads">Uploads</a> page, or run{' '}
      <code>
        plugsmith files upload ./guide.pdf --parent-type ORG --parent-id{' '}
        {currentWorkspace().orgId ?? '<orgId>'}
      </code>
      .
    </>
  ),
  listPath: () => '',
  sortFields: fileSorts,
  filters: [
    ...fileFilters,
    { field: 'parentType', label: 'Parent type', options: [...PARENT_TYPES] },
    { field: 'folder', label: 'Folder' },
  ],
  columns: fileColumns,
  edit: {
    method: 'PATCH',
    path: () => '/status',
    fields: ['status', 'errorMessage'],
    always: ['status'],
    toBody: (draft, r) =>
      Object.fromEntries(Object.entries({ fileId: r.id, ...draft }).filter(([, v]) => v !== null)),
  },
};

const messages: CollectionConfig = {
  key: 'messages',
  label: 'Messages',
  noun: 'message',
  target: 'admin',
  paging: 'cursor',
  defaultOrder: 'asc',
  listPath: (ctx) => `/conversations/${parentId(ctx)}/messages`,
  sortFields: [...stamps, 'sender', 'type'],
  filters: [
    { field: 'sender', label: 'Sender', options: ['USER', 'CHARACTER'] },
    { field: 'isStreaming', label: 'Streaming', options: bool },
  ],
  columns: [
    { field: 'sender', label: 'Sender' },
    { field: 'type', label: 'Type' },
    { field: 'content', label: 'Content' },
    { field: 'isStreaming', label: 'Streaming', render: yesNo('isStreaming') },
    { field: 'createdAt', label: 'Sent' },
  ],
  create: {
    target: 'messaging',
    path: (ctx) => `/conversations/${parentId(ctx)}/messages`,
    template: () => ({ content: 'hello' }),
    label: 'Send a message',
  },
  empty: (ctx) => (
    <>
      No messages yet: use Send a message above, or talk in{' '}
      <a href={`#/chat/${parentId(ctx)}`}>Chat</a>.
    </>
  ),
};

const conversations: CollectionConfig = {
  key: 'conversations',
  label: 'Conversations',
  noun: 'conversation',
  target: 'admin',
  paging: 'cursor',
  note: "Every org's conversations (admin API). New ones go through the messaging API with the workspace's API key.",
  empty: () => (
    <>
      No conversations yet: start one in <a href="#/chat">Chat</a>, with New conversation above, or
      run <code>plugsmith chat</code>.
    </>
  ),
  listPath: () => '/conversations',
  sortFields: [...stamps, 'characterId'],
  filters: [
    { field: 'characterId', label: 'Character' },
    { field: 'orgId', label: 'Org' },
  ],
  columns: [
    { field: 'id', label: 'Id' },
    { field: 'characterId', label: 'Character' },
    { field: 'orgId', label: 'Org' },
    { field: 'updatedAt', label: 'Updated' },
  ],
  create: {
    target: 'messaging',
    path: () => '/conversations',
    template: () => ({ characterId: currentWorkspace().characterId ?? 'char_…' }),
  },
  children: [messages],
  extra: (record) => (
    <p>
      <a href={`#/chat/${enc(String(record.id))}`}>Open in Chat</a>
    </p>
  ),
};

const orgFilter = { field: 'orgId', label: 'Org' };

const agents: CollectionConfig = {
  key: 'agents',
  label: 'Agents',
  noun: 'agent',
  target: 'admin',
  listPath: () => '/agents',
  sortFields: [...stamps, 'name'],
  filters: [orgFilter],
  columns: [
    { field: 'name', label: 'Name' },
    { field: 'id', label: 'Id' },
    { field: 'orgId', label: 'Org' },
    { field: 'updatedAt', label: 'Updated' },
  ],
  create: { path: () => '/agents', template: (ctx) => ({ orgId: ctx.orgId, name: 'New agent' }) },
  empty: () => (
    <>
      No agents yet: use New agent above, or start the emulator with a seed that has some (
      <code>plugsmith emulator start --seed seed.json</code>).
    </>
  ),
  edit: { method: 'PATCH', path: (r) => `/agents/${enc(r.id)}`, fields: ['name'] },
};

const characters: CollectionConfig = {
  key: 'characters',
  label: 'Characters',
  noun: 'character',
  target: 'admin',
  listPath: () => '/characters',
  sortFields: [...stamps, 'name', 'engine'],
  filters: [
    orgFilter,
    { field: 'agentId', label: 'Agent' },
    { field: 'engine', label: 'Engine', options: [...CHARACTER_ENGINES] },
  ],
  columns: [
    { field: 'name', label: 'Name' },
    { field: 'id', label: 'Id' },
    { field: 'agentId', label: 'Agent' },
    { field: 'engine', label: 'Engine' },
    { field: 'orgId', label: 'Org' },
  ],
  create: {
    path: () => '/characters',
    template: (ctx) => ({
      orgId: ctx.orgId,
      agentId: currentWorkspace().agentId,
      name: 'Echo',
      script: [{ match: 'hello', reply: 'Hi there!' }],
      fallbackReply: 'Tell me more.',
    }),
  },
  edit: {
    method: 'PATCH',
    path: (r) => `/characters/${enc(r.id)}`,
    fields: [
      'name',
      'agentId',
      'persona',
      'engine',
      'script',
      'fallbackReply',
      'packetSize',
      'packetIntervalMs',
    ],
  },
  empty: () => (
    <>
      No characters yet: use New character above (a character belongs to an agent), or start the
      emulator with a seed that has some.
    </>
  ),
};

const tokens: CollectionConfig = {
  key: 'tokens',
  label: 'Tokens',
  noun: 'token',
  target: 'admin',
  note: 'User and installation tokens, metadata only: the emulator keeps only hashes, and shows neither. hint is the last 4 characters.',
  listPath: () => '/tokens',
  sortFields: [...stamps, 'name', 'kind'],
  filters: [
    { field: 'kind', label: 'Kind', options: ['user', 'instance'] },
    orgFilter,
    { field: 'userId', label: 'User' },
  ],
  columns: [
    { field: 'name', label: 'Name' },
    { field: 'kind', label: 'Kind' },
    { field: 'hint', label: 'Ends with' },
    { field: 'userId', label: 'User' },
    { field: 'orgId', label: 'Org' },
    { field: 'revokedAt', label: 'Revoked' },
  ],
  create: {
    target: 'api',
    path: () => '/tokens',
    template: (ctx) => ({ name: 'dashboard', orgId: ctx.orgId }),
    secretField: 'token',
  },
  empty: () => (
    <>
      No tokens yet: use New token above, or run <code>plugsmith tokens create --name ci</code>.
    </>
  ),
};

const apiKeys: CollectionConfig = {
  key: 'api-keys',
  label: 'API keys',
  noun: 'API key',
  target: 'admin',
  note: 'Messaging API keys, metadata only (hint is the last 4 characters).',
  listPath: () => '/api-keys',
  sortFields: [...stamps, 'name'],
  filters: [orgFilter],
  columns: [
    { field: 'name', label: 'Name' },
    { field: 'hint', label: 'Ends with' },
    { field: 'orgId', label: 'Org' },
    { field: 'createdAt', label: 'Created' },
  ],
  create: {
    path: () => '/api-keys',
    template: (ctx) => ({ orgId: ctx.orgId, name: 'web' }),
    secretField: 'key',
  },
  empty: () => <>No API keys yet: use New API key above (the messaging API and Chat need one).</>,
  remove: { path: (r) => `/api-keys/${enc(r.id)}`, label: 'Revoke API key' },
};

/** The Data page's collections, in tab order. */
export const COLLECTIONS: CollectionConfig[] = [
  plugins,
  repositories,
  uploads,
  conversations,
  agents,
  characters,
  tokens,
  apiKeys,
];
