import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { EVENT_KINDS, WEBHOOK_EVENT_SCHEMAS } from '#contract';
import { ADMIN_HEADER } from '../admin/guard.js';
import { describeOperations, TAGS, type OpenApiDocument, type OpenApiNode } from './operations.js';
import { SESSION_HEADER } from '../admin/dashboard-logins.js';

/** Builds an app with every route registered after `install` (which adds the OpenAPI collector); never listens. */
type AppBuilder = (install: (app: FastifyInstance) => Promise<void>) => Promise<FastifyInstance>;

/** How the platform signs what it posts to a plugin (Standard Webhooks). */
const WEBHOOK_SIGNING =
  'Standard Webhooks: `webhook-signature` is a space-separated list of `v1,<base64 signature>`, each the HMAC-SHA256, keyed with the base64-decoded part of a `whsec_…` secret, of `<webhook-id>.<webhook-timestamp>.<raw body>`; during a secret rotation one signature per valid secret is sent, and a receiver accepts the request when any of them matches one of its secrets. `webhook-timestamp` is in Unix seconds: refuse one more than 5 minutes away from now. `webhook-id` is the same on every retry of one event: use it to ignore repeats.';

const headerKey = (name: string, description: string) => ({
  type: 'apiKey',
  in: 'header',
  name,
  description,
});
const SECURITY_SCHEMES = {
  managementToken: headerKey(
    'Authorization',
    'A user token or an installation access token, as `<token>` or `Bearer <token>`',
  ),
  messagingApiKey: {
    type: 'http',
    scheme: 'bearer',
    description: "An org's messaging API key: `Bearer <apiKey>`",
  },
  adminToken: headerKey(
    ADMIN_HEADER,
    'The admin token of the running emulator (`emulator start --json` prints it as adminToken)',
  ),
  webhookSignature: headerKey('webhook-signature', WEBHOOK_SIGNING),
  dashboardSession: headerKey(
    SESSION_HEADER,
    'A dashboard session token (from `POST /_emulator/dashboard/session` with a login code); never a cookie',
  ),
};

/** The collector: @fastify/swagger in OpenAPI 3.1 mode, registered before the routes it documents. */
async function collector(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'plugsmith platform API (emulator)', version: '1' },
    },
    // Named shared schemas keep their names in components.schemas.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
}

/** The credentials a route of `api` takes, where its schema does not declare them. */
function securityOf(
  path: string,
  api: 'management' | 'messaging',
): Array<Record<string, string[]>> {
  if (api === 'messaging') return [{ messagingApiKey: [] }];
  return path.startsWith('/_emulator')
    ? [{ adminToken: [] }, { dashboardSession: [] }]
    : [{ managementToken: [] }];
}

/** Takes a route's first schema example up to its request body's media type, where OpenAPI tools look for it. */
function liftExamples(operation: OpenApiNode): void {
  const media = operation?.requestBody?.content?.['application/json'];
  if (media?.schema?.examples?.length && media.example === undefined)
    media.example = media.schema.examples[0];
}

/** Every operation that writes may meet a full disk: a 507 in the error envelope (http.ts), declared beside its other errors. */
function declareDiskFull(method: string, operation: OpenApiNode): void {
  if (method === 'get' || method === 'head' || !operation.responses || operation.responses['507'])
    return;
  const error = Object.values<OpenApiNode>(operation.responses).find((r) =>
    String(r?.content?.['application/json']?.schema?.$ref ?? '').endsWith('/ErrorEnvelope'),
  );
  if (error)
    operation.responses['507'] = {
      ...error,
      description:
        "The disk holding the emulator's data is full (ENOSPC) or over quota: nothing was stored; the connection closes",
    };
}

/** What the routes alone decide (paths, webhooks, components): the same for every emulator, as no option adds a documented route. */
interface RoutesDocument {
  paths: Record<string, OpenApiNode>;
  /** The paths of the messaging API, served at their own URL. */
  messagingPaths: string[];
  webhooks: Record<string, OpenApiNode>;
  components: { schemas: Record<string, OpenApiNode> };
}

declare global {
  /** The routes' document of this process, built once: on globalThis, as a test runner loads this module once per test file. */
  var plugsmithRoutesDocument:
    | { document: Promise<RoutesDocument> | null; builds: number }
    | undefined;
}

const shared = () => (globalThis.plugsmithRoutesDocument ??= { document: null, builds: 0 });

/** How many times this process built the routes' document (for tests: every emulator shares one). */
export function routesDocumentBuilds(): number {
  return shared().builds;
}

/** The routes' document of this process: built once (about 170 ms) by the first emulator that needs it, then shared; a failed build is retried. */
export function sharedRoutesDocument(builders: {
  management: AppBuilder;
  messaging: AppBuilder;
}): Promise<RoutesDocument> {
  const state = shared();
  if (!state.document) {
    const document = buildRoutesDocument(builders);
    state.document = document;
    document.catch(() => {
      if (state.document === document) state.document = null;
    });
  }
  return state.document;
}

/** Builds the routes' document of the management API (`/api`, `/_emulator`) and the messaging API. */
async function buildRoutesDocument(builders: {
  management: AppBuilder;
  messaging: AppBuilder;
}): Promise<RoutesDocument> {
  shared().builds++;
  const documentOf = async (build: AppBuilder) => {
    const app = await build(collector);
    await app.ready();
    // Not closed: it never listened, and closing would run the shared services' close hooks.
    return app.swagger() as OpenApiDocument;
  };
  const management = await documentOf(builders.management);
  const messaging = await documentOf(builders.messaging);
  const paths: Record<string, OpenApiNode> = {};
  const messagingPaths: string[] = [];
  const add = (doc: OpenApiDocument, api: 'management' | 'messaging') => {
    for (const [path, item] of Object.entries<OpenApiNode>(doc.paths ?? {})) {
      const raw = path.replace(/\{(\w+)\}/g, ':$1');
      for (const [method, operation] of Object.entries<OpenApiNode>(item)) {
        if (typeof operation !== 'object' || operation === null) continue;
        // A route that takes no credential says so in its schema (`security: []`, emulator/open-route.ts).
        operation.security ??= securityOf(raw, api);
        liftExamples(operation);
        declareDiskFull(method, operation);
      }
      if (api === 'messaging') messagingPaths.push(path);
      paths[path] = item;
    }
  };
  add(management, 'management');
  add(messaging, 'messaging');
  const webhooks = Object.fromEntries(
    EVENT_KINDS.map((kind) => [kind, { post: webhookOperation(kind) }]),
  );
  const routes: RoutesDocument = {
    paths,
    messagingPaths,
    webhooks,
    components: {
      schemas: {
        ...(management.components?.schemas ?? {}),
        ...(messaging.components?.schemas ?? {}),
      },
    },
  };
  // Operation ids, summaries, links, one title per schema: none of it depends on where the emulator listens.
  describeOperations(routes);
  return routes;
}

/** The OpenAPI 3.1 document of the three APIs, placed at their URLs, with the webhook events as `webhooks`; `routes` is shared, never changed. */
export function placeDocument(
  routes: RoutesDocument,
  urls: { managementUrl: string; messagingUrl: string },
): OpenApiDocument {
  const paths = { ...routes.paths };
  // The messaging API is a second server: every one of its operations says so.
  const servers = [
    {
      url: urls.messagingUrl,
      description: 'messaging API (its own server, not the management one)',
    },
  ];
  for (const path of routes.messagingPaths) {
    const item: Record<string, OpenApiNode> = { ...paths[path], servers };
    for (const [key, operation] of Object.entries<OpenApiNode>(item))
      if (typeof operation === 'object' && operation !== null && 'responses' in operation)
        item[key] = { ...operation, servers };
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'plugsmith platform API (emulator)',
      version: '1',
      description:
        "The management API (/api), the messaging API (/conversations, on its own server: see `servers` on its operations) and the emulator admin API (/_emulator), as the plugsmith emulator serves them. Every JSON response is { ok: true, data, meta? } or { ok: false, error: { message, error, details? } }. A method a path does not declare is answered 405 with an `Allow` header listing the ones it does (see each path's description); an unknown path is a 404. Path parameters longer than 100 characters are refused (400) before anything else.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: urls.managementUrl, description: 'management and admin API' }],
    tags: TAGS,
    paths,
    webhooks: routes.webhooks,
    components: {
      schemas: routes.components.schemas,
      securitySchemes: SECURITY_SCHEMES,
      responses: { MethodNotAllowed: METHOD_NOT_ALLOWED },
    },
  };
}

/** What a path answers to a method it does not declare. */
const METHOD_NOT_ALLOWED = {
  description: 'The path exists, but not with this method: `Allow` lists its methods',
  headers: {
    Allow: {
      description: 'The methods of the path, e.g. `GET, HEAD, POST`',
      schema: { type: 'string' },
    },
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
};

/** A webhook event as the platform posts it: signed headers, the event as the body, and what the plugin must answer. */
function webhookOperation(kind: (typeof EVENT_KINDS)[number]) {
  const header = (name: string, description: string, schema: Record<string, unknown>) => ({
    in: 'header',
    name,
    required: true,
    description,
    schema,
  });
  const challenge = kind === 'WEBHOOK_CHALLENGE';
  return {
    operationId: `on${kind.toLowerCase().replace(/(?:^|_)([a-z])/g, (_, c: string) => c.toUpperCase())}`,
    summary: `${kind}, posted to the plugin's webhook URL`,
    description: `Signed as Standard Webhooks: ${WEBHOOK_SIGNING}`,
    tags: ['webhooks'],
    security: [{ webhookSignature: [] }],
    parameters: [
      header('webhook-id', "The event delivery's id, the same on every retry", {
        type: 'string',
        minLength: 1,
      }),
      header('webhook-timestamp', 'When this attempt was signed, in Unix seconds', {
        type: 'string',
        pattern: '^[0-9]+$',
      }),
      header(
        'webhook-signature',
        'Space-separated `v1,<base64>` signatures (one per valid secret)',
        { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
      ),
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: WEBHOOK_EVENT_SCHEMAS[kind] } },
    },
    responses: challenge
      ? {
          '200': {
            description:
              'The challenge answered: JSON `{ "challenge": <the value received> }`, or a text/plain body that is exactly the value; anything else leaves the webhook unverified',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['challenge'],
                  properties: {
                    challenge: { type: 'string', description: 'The `data.challenge` received' },
                  },
                },
              },
              'text/plain': {
                schema: { type: 'string', description: 'The `data.challenge` received, exactly' },
              },
            },
          },
        }
      : {
          '200': {
            description:
              'Any 2xx acknowledges the event; anything else (or no answer in time) is retried with backoff',
          },
        },
  };
}
