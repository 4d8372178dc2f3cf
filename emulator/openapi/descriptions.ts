// What each operation does beyond its summary: who may call it, what it changes, what it sends.
// Keyed by `METHOD path` as OPERATIONS in operations.ts; a test fails on any operation missing here.
// Roles are those the routes check (auth/guards.ts); the events those their services emit.

import { HOLD_ROUTE_METADATA } from '../admin/hold.js';

/** Who may call the emulator admin API, said once. */
const ADMIN = 'With the admin token or a dashboard session:';

/** The description of every operation, by `METHOD path`. */
export const DESCRIPTIONS: Readonly<Record<string, string>> = {
  'POST /api/tokens':
    'A user token creates another token for its user; with `orgId` (the user must be a member) the new token works only inside that org. The token string is in the answer only this once.',
  'POST /api/plugins':
    'A MEMBER or OWNER of the org named by `orgId` in the body creates a plugin there; its webhook starts unverified. Sends no event.',
  'POST /api/orgs/{orgId}/plugins':
    'A MEMBER or OWNER of the org in the path creates a plugin there (`orgId` must not be in the body); its webhook starts unverified. Sends no event.',
  'GET /api/orgs/{orgId}/plugins':
    "Any user token lists an org's plugins with the query system: a member sees all of them, anyone else only the public ones.",
  'GET /api/plugins/marketplace':
    'Anyone, without a credential, lists the public plugins of every org, with the query system.',
  'GET /api/plugins/{pluginId}':
    "A member of the plugin's org reads it, or any user token when it is public; otherwise a 404. Never shows the webhook secret.",
  'PUT /api/plugins/{pluginId}':
    "A MEMBER or OWNER of the plugin's org changes its fields; a new `webhookUrl` makes the webhook unverified again. Sends no event.",
  'DELETE /api/plugins/{pluginId}':
    "An OWNER of the plugin's org deletes it with its actions and external events; each of its instances is uninstalled first and sent PLUGIN_UNINSTALLED.",
  'GET /api/plugins/{pluginId}/actions':
    'Whoever may read the plugin lists its actions, with the query system.',
  'POST /api/plugins/{pluginId}/actions':
    "A MEMBER or OWNER of the plugin's org adds an action (its name unique in the plugin; its JSON Schemas are checked).",
  'GET /api/plugins/{pluginId}/actions/{name}':
    'Whoever may read the plugin reads one of its actions, by name.',
  'PUT /api/plugins/{pluginId}/actions/{name}':
    "A MEMBER or OWNER of the plugin's org changes an action, by name; its JSON Schemas are checked again.",
  'DELETE /api/plugins/{pluginId}/actions/{name}':
    "An OWNER of the plugin's org deletes an action, by name.",
  'GET /api/plugins/{pluginId}/external-events':
    'Whoever may read the plugin lists its external events (events that come from third-party systems; the platform never emits them), with the query system.',
  'POST /api/plugins/{pluginId}/external-events':
    "A MEMBER or OWNER of the plugin's org declares an external event (its name unique in the plugin; its JSON Schema is checked).",
  'GET /api/plugins/{pluginId}/external-events/{eventName}':
    'Whoever may read the plugin reads one of its external events, by name.',
  'PUT /api/plugins/{pluginId}/external-events/{eventName}':
    "A MEMBER or OWNER of the plugin's org changes an external event, by name.",
  'DELETE /api/plugins/{pluginId}/external-events/{eventName}':
    "An OWNER of the plugin's org deletes an external event, by name.",
  'POST /api/repositories':
    'A MEMBER or OWNER of the org named by `orgId` in the body creates a repository there. Sends no event.',
  'POST /api/orgs/{orgId}/repositories':
    'A MEMBER or OWNER of the org in the path creates a repository there (`orgId` must not be in the body). Sends no event.',
  'GET /api/orgs/{orgId}/repositories':
    'A member of the org (any role) lists its repositories, with the query system; anyone else gets an error.',
  'GET /api/repositories/{repositoryId}':
    "A member of the repository's org (any role) reads it; anyone else gets a 404.",
  'POST /api/plugins/{pluginId}/verify-webhook':
    "A MEMBER or OWNER of the plugin's org sends WEBHOOK_CHALLENGE to its webhook URL and waits for the answer: the webhook is verified when the plugin echoes the challenge. The delivery is logged like any other.",
  'POST /api/plugins/{pluginId}/webhook-secret/rotate':
    "A MEMBER or OWNER of the plugin's org gets a new signing secret (shown only in this answer); the previous one keeps signing beside it for `graceSeconds` (24 h without a body). Sends no event.",
  'POST /api/repositories/{repositoryId}/data-providers':
    "A MEMBER or OWNER of the repository's org installs a plugin (usually a DATA_PROVIDER with a verified webhook) on it; the new instance's access token is sent to the plugin in PLUGIN_INSTALLED.",
  'GET /api/repositories/{repositoryId}/data-providers':
    "A member of the repository's org lists the plugin instances installed on it as data providers, with the query system.",
  'DELETE /api/repositories/{repositoryId}/data-providers/{pluginInstanceId}':
    "An OWNER of the repository's org uninstalls a data provider: its access token stops working and the plugin is sent PLUGIN_UNINSTALLED.",
  'POST /api/agents/{agentId}/plugins':
    "A MEMBER or OWNER of the agent's org installs a plugin on it (an EVENT_HANDLER receives the agent's AGENT_MESSAGE_RECEIVED); the new instance's access token is sent in PLUGIN_INSTALLED.",
  'GET /api/agents/{agentId}/plugins':
    "A member of the agent's org lists the plugin instances installed on it, with the query system.",
  'DELETE /api/agents/{agentId}/plugins/{pluginInstanceId}':
    "An OWNER of the agent's org uninstalls a plugin from it: its access token stops working and the plugin is sent PLUGIN_UNINSTALLED.",
  'POST /api/apps/{appId}/plugins':
    "A MEMBER or OWNER of the app's org installs a plugin on it; the new instance's access token is sent in PLUGIN_INSTALLED.",
  'GET /api/apps/{appId}/plugins':
    "A member of the app's org lists the plugin instances installed on it, with the query system.",
  'DELETE /api/apps/{appId}/plugins/{pluginInstanceId}':
    "An OWNER of the app's org uninstalls a plugin from it: its access token stops working and the plugin is sent PLUGIN_UNINSTALLED.",
  'POST /api/agents/{agentId}/conversations/{conversationId}/messages':
    "A plugin, with an installation access token that has AGENT_MESSAGE_WRITE on the agent, writes its character's reply: each call is one packet (without `messageId` a new message, with it the next delta). Every packet reaches the conversation stream as CHARACTER_MESSAGE_SENT.",
  'GET /api/generate-upload-url':
    "The spec's form of the request, with the JSON body on a GET: the same as the POST form (which proxies pass on; many drop a GET body). A MEMBER or OWNER of the owning org creates one file record per file and gets a signed upload URL for each.",
  'POST /api/generate-upload-url':
    "A MEMBER or OWNER of the owning org (the parent's, else `orgId`, else the token's) creates one file record per file (status null) and gets a signed PUT URL for each, valid an hour.",
  'PATCH /api/status':
    "A MEMBER or OWNER of the file's org reports an upload: UPLOADED once its object is stored, FAILED with an `errorMessage`, then PROCESSING or COMPLETED; any other change is a 409.",
  'GET /api':
    "A member of the files' orgs lists the files it may read (filter by `parentId` and `parentType` for one parent), with the query system.",
  'GET /api/access/{fileId}':
    "A member of the file's org, or the data provider of a repository that holds it (REPOSITORY_FILES_READ), gets a URL to read it: signed for `expiresIn` seconds for a private file, direct for a public one.",
  'POST /api/repositories/{repositoryId}/files':
    "A MEMBER or OWNER of the repository's org adds an uploaded file of that org to it; its data providers are sent REPOSITORY_FILE_ADDED.",
  'GET /api/repositories/{repositoryId}/files':
    "A member of the repository's org, or its data provider with REPOSITORY_FILES_READ, lists the files it holds, with the query system.",
  'DELETE /api/repositories/{repositoryId}/files/{fileId}':
    "A MEMBER or OWNER of the repository's org removes a file from it (the file record stays); its data providers are sent REPOSITORY_FILE_REMOVED.",
  'GET /_emulator/health':
    'Anyone, without a credential: whether the emulator is up, with its URLs, store id and process id. For readiness checks; holds no records.',
  'GET /_emulator/deliveries': `${ADMIN} lists the webhook deliveries (one per event and instance, with their attempts), newest first, with the query system and time filters.`,
  'GET /_emulator/deliveries/stream': `${ADMIN} streams one \`attempt\` event per delivery attempt as it is logged (each with an \`id:\`), filtered like the list.`,
  'GET /_emulator/deliveries/{deliveryId}': `${ADMIN} reads one delivery: the event sent, the URL, every attempt with its answer, and its status.`,
  'POST /_emulator/deliveries/{deliveryId}/redeliver': `${ADMIN} sends the delivery's event again as a new delivery (same event id, to the plugin's current URL); a pending one's retries are cancelled first. Answers after the first attempt, or at once with \`wait=false\`.`,
  'POST /_emulator/deliveries/{deliveryId}/retry': `${ADMIN} makes a pending delivery's next attempt now instead of after its backoff; a delivery that is not pending is a 409.`,
  'POST /_emulator/deliveries/{deliveryId}/cancel': `${ADMIN} cancels a pending delivery's remaining retries: it becomes failed, with \`cancelledAt\`; a delivery that is not pending is a 409.`,
  'POST /_emulator/deliveries/redeliver': `${ADMIN} sends again, each as a new delivery, every delivery the list's filters match (challenges skipped; over 1,000 matches is a 400), answering at once.`,
  'GET /_emulator/stream': `${ADMIN} streams \`hello\` when it opens and \`store-replaced\` after each reset or import, so a client knows its lists are stale.`,
  'GET /_emulator/characters': `${ADMIN} lists the characters of every org, with the query system.`,
  'POST /_emulator/characters': `${ADMIN} creates a character in an org (its engine, script or persona); conversations are started with it on the messaging API.`,
  'GET /_emulator/characters/{characterId}': `${ADMIN} reads a character.`,
  'PATCH /_emulator/characters/{characterId}': `${ADMIN} changes a character's fields (not its id or org).`,
  'GET /_emulator/agents': `${ADMIN} lists the agents of every org, with the query system.`,
  'POST /_emulator/agents': `${ADMIN} creates an agent in an org; plugins are installed on it with the management API.`,
  'GET /_emulator/agents/{agentId}': `${ADMIN} reads an agent.`,
  'PATCH /_emulator/agents/{agentId}': `${ADMIN} renames an agent.`,
  'GET /_emulator/api-keys': `${ADMIN} lists the messaging API keys as metadata (a hint, never the key), with the query system.`,
  'POST /_emulator/api-keys': `${ADMIN} creates a messaging API key for an org; the key is in this answer only.`,
  'DELETE /_emulator/api-keys/{apiKeyId}': `${ADMIN} revokes a messaging API key: its requests are refused and the conversation streams opened with it end at once.`,
  'GET /_emulator/conversations': `${ADMIN} lists the conversations of every org, with the query system.`,
  'GET /_emulator/conversations/{conversationId}': `${ADMIN} reads a conversation of any org.`,
  'GET /_emulator/conversations/{conversationId}/messages': `${ADMIN} lists a conversation's messages, oldest first, a streaming one with its content so far.`,
  'GET /_emulator/tokens': `${ADMIN} lists the user and installation tokens of every org as metadata (a hint, never the token).`,
  'GET /_emulator/export': `${ADMIN} writes every record of the store as one JSON document, which \`POST /_emulator/import\` takes back.`,
  'POST /_emulator/import': `${ADMIN} replaces every record with those of an export, checked first (nothing changes on a 400); pending retries, live replies and conversation streams of before end, and \`store-replaced\` is streamed.`,
  'POST /_emulator/reset': `${ADMIN} empties the store and loads the seed again (its credentials stay valid); \`store-replaced\` is streamed.`,
  'POST /_emulator/events': `${ADMIN} emits a platform event (any event kind) to a plugin's instances, or WEBHOOK_CHALLENGE to a plugin, as the platform would: signed, logged and retried like any delivery.`,
  'GET /_emulator/instances': `${ADMIN} lists the plugin instances of every org (repositories, agents and apps), with the query system.`,
  'GET /_emulator/faults': `${ADMIN} reads the fault injection in force: its profile and seed.`,
  'PUT /_emulator/faults': `${ADMIN} sets the fault injection profile and seed of webhook deliveries (\`off\` turns it off); applies to the attempts that start afterwards.`,
  'GET /_emulator/scenario': `${ADMIN} reads the name of the running scenario, or null when none runs.`,
  'PUT /_emulator/scenario': `${ADMIN} names the running scenario (null clears it); every delivery created from then on carries that name as \`scenario\`.`,
  'GET /_emulator/overview': `${ADMIN} the emulator's URLs, store, uptime, record counts, delivery queue, storage and LLM settings, for the dashboard's first page; never a secret.`,
  'POST /_emulator/dashboard/session':
    'Anyone holding a single-use login code (from a dashboard login link) exchanges it for a dashboard session token, sent as `x-plugsmith-session` afterwards, and the workspace; no cookie is set.',
  'GET /_emulator/dashboard/session':
    'With a dashboard session (or the admin token): answers the workspace the session works in.',
  'DELETE /_emulator/dashboard/session':
    'With a dashboard session: ends the session its `x-plugsmith-session` header names; that token is refused afterwards.',
  'POST /_emulator/dashboard/login-links': `${ADMIN} creates a fresh single-use dashboard login link (a URL with a login code).`,
  'POST /conversations':
    "With an org's messaging API key: starts a conversation with one of the org's characters.",
  'GET /conversations/{conversationId}':
    "With the messaging API key of the conversation's org: reads the conversation.",
  'POST /conversations/{conversationId}/messages':
    "With the messaging API key of the conversation's org: sends a user's message. The character replies in packets (CHARACTER_MESSAGE_SENT on the conversation stream); a character whose agent has EVENT_HANDLER plugins sends them AGENT_MESSAGE_RECEIVED and lets them reply.",
  'GET /conversations/{conversationId}/messages':
    "With the messaging API key of the conversation's org: lists its messages, oldest first, a streaming one with its content so far (poll with `after`).",
  'GET /conversations/{conversationId}/events':
    "With the messaging API key of the conversation's org: streams CHARACTER_MESSAGE_SENT per packet of the character's replies, as server-sent events without ids.",
  // Until route schemas carry their metadata, the hold routes' lives beside them (emulator/admin/hold.ts).
  ...Object.fromEntries(
    Object.entries(HOLD_ROUTE_METADATA).map(([key, m]) => [key, `${ADMIN} ${m.description}`]),
  ),
};
