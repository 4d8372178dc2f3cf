import { ALLOW_ORDER } from '../http.js';

/**
 * A node of the OpenAPI document (a path item, an operation, a response, a schema), read and rewritten by key.
 * The document is @fastify/swagger's output reshaped here; no published type fits it at every depth.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one name for the document's untyped JSON nodes, used by the walks in this folder
export type OpenApiNode = any;

/** An OpenAPI 3.1 document (or the routes' part of one), as JSON. */
export type OpenApiDocument = Record<string, OpenApiNode>;

// The route schemas carry each operation's metadata (operationId, tags, summary, description) and
// their route options its links; this file holds the document-wide parts: the tags, and the shape OpenAPI tools read.

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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The `text/event-stream` bodies: a string of frames, described. */
const EVENT_STREAM_FORMAT =
  'Server-sent events (text/event-stream, UTF-8): frames separated by a blank line, each made of an `event: <name>` and a `data: <one line of JSON>` line, and an `id: <id>` line only where the response says events have ids; lines starting with `:` are comments (keep-alives). The data of each event is described by `x-event-data` on this media type.';

/** Completes the document built from the route schemas: the shapes OpenAPI tools read (see the top of this file). */
export function describeOperations(doc: OpenApiDocument): void {
  // `/api/` is fastify's spelling of the prefix's own route; clients call `/api` (both are served).
  if (doc.paths['/api/'] && !doc.paths['/api']) {
    doc.paths['/api'] = doc.paths['/api/'];
    delete doc.paths['/api/'];
  }
  for (const item of Object.values<OpenApiNode>(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
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
