import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { EVENT_KINDS, WEBHOOK_EVENT_SCHEMAS } from '../../src/contract/index.js';
import { ADMIN_HEADER } from '../admin/guard.js';
import { SESSION_HEADER } from '../admin/dashboard-logins.js';

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = Record<string, any>;

/** Builds an app with every route registered after `install` (which adds the OpenAPI collector); never listens. */
export type AppBuilder = (install: (app: FastifyInstance) => Promise<void>) => Promise<FastifyInstance>;

const SECURITY_SCHEMES = {
  managementToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'A user token or an installation access token, as `<token>` or `Bearer <token>`',
  },
  messagingApiKey: { type: 'http', scheme: 'bearer', description: "An org's messaging API key: `Bearer <apiKey>`" },
  adminToken: {
    type: 'apiKey',
    in: 'header',
    name: ADMIN_HEADER,
    description: 'The admin token of the running emulator (`emulator start --json` prints it as adminToken)',
  },
  dashboardSession: {
    type: 'apiKey',
    in: 'header',
    name: SESSION_HEADER,
    description: 'A dashboard session token (from `POST /_emulator/dashboard/session` with a login code); never a cookie',
  },
};

/** Routes that need no credential at all. */
const OPEN = new Set(['/api/plugins/marketplace', '/_emulator/health', '/_emulator/openapi.json']);

/** The collector: @fastify/swagger in OpenAPI 3.1 mode, registered before the routes it documents. */
async function collector(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: { openapi: '3.1.0', info: { title: 'plugsmith platform API (emulator)', version: '1' } },
    // Named shared schemas keep their names in components.schemas.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
}

function securityOf(path: string, api: 'management' | 'messaging'): Array<Record<string, string[]>> {
  if (OPEN.has(path)) return [];
  if (api === 'messaging') return [{ messagingApiKey: [] }];
  return path.startsWith('/_emulator') ? [{ adminToken: [] }, { dashboardSession: [] }] : [{ managementToken: [] }];
}

/** Takes a route's first schema example up to its request body's media type, where OpenAPI tools look for it. */
function liftExamples(operation: any): void {
  const media = operation?.requestBody?.content?.['application/json'];
  if (media?.schema?.examples?.length && media.example === undefined) media.example = media.schema.examples[0];
}

/**
 * What the document says that the routes alone decide: paths, webhooks and components, the same for
 * every emulator (the route schemas come from the contract; no option adds a documented route).
 */
export interface RoutesDocument {
  paths: Record<string, any>;
  /** The paths of the messaging API, served at their own URL. */
  messagingPaths: string[];
  webhooks: Record<string, any>;
  components: { schemas: Record<string, any> };
}

declare global {
  /** The routes' document of this process, built once (see `sharedRoutesDocument`). */
  var plugsmithRoutesDocument: { document: Promise<RoutesDocument> | null; builds: number } | undefined;
}

// On globalThis: a test runner loads this module once per test file, in one process.
const shared = () => (globalThis.plugsmithRoutesDocument ??= { document: null, builds: 0 });

/** How many times this process built the routes' document (for tests: every emulator shares one). */
export function routesDocumentBuilds(): number {
  return shared().builds;
}

/**
 * The routes' document of this process: built once (about 170 ms: two apps with every route and
 * @fastify/swagger) by the first emulator that needs it, then shared by every emulator.
 */
export function sharedRoutesDocument(builders: { management: AppBuilder; messaging: AppBuilder }): Promise<RoutesDocument> {
  const state = shared();
  if (!state.document) {
    const document = buildRoutesDocument(builders);
    state.document = document;
    // A failed build is not kept: the next request tries again.
    document.catch(() => {
      if (state.document === document) state.document = null;
    });
  }
  return state.document;
}

/** Builds the routes' document of the management API (`/api`, `/_emulator`) and the messaging API. */
export async function buildRoutesDocument(builders: { management: AppBuilder; messaging: AppBuilder }): Promise<RoutesDocument> {
  shared().builds++;
  const documentOf = async (build: AppBuilder) => {
    const app = await build(collector);
    await app.ready();
    // Not closed: it never listened, and closing would run the shared services' close hooks.
    return app.swagger() as OpenApiDocument;
  };
  const management = await documentOf(builders.management);
  const messaging = await documentOf(builders.messaging);
  const paths: Record<string, any> = {};
  const messagingPaths: string[] = [];
  const add = (doc: OpenApiDocument, api: 'management' | 'messaging') => {
    for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
      const raw = path.replace(/\{(\w+)\}/g, ':$1');
      for (const operation of Object.values<any>(item)) {
        if (typeof operation !== 'object' || operation === null) continue;
        operation.security = securityOf(raw, api);
        operation.tags ??= [path.startsWith('/_emulator') ? 'admin' : api];
        liftExamples(operation);
      }
      if (api === 'messaging') messagingPaths.push(path);
      paths[path] = item;
    }
  };
  add(management, 'management');
  add(messaging, 'messaging');
  const webhooks = Object.fromEntries(
    EVENT_KINDS.map((kind) => [
      kind,
      {
        post: {
          summary: `${kind}: posted to the plugin's webhook URL, signed (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature)`,
          requestBody: { required: true, content: { 'application/json': { schema: WEBHOOK_EVENT_SCHEMAS[kind] } } },
          responses: { '200': { description: 'Any 2xx acknowledges the event; anything else is retried with backoff' } },
        },
      },
    ]),
  );
  return { paths, messagingPaths, webhooks, components: { schemas: { ...(management.components?.schemas ?? {}), ...(messaging.components?.schemas ?? {}) } } };
}

/**
 * The OpenAPI 3.1 document of the three APIs: the management API (`/api`) and the admin API
 * (`/_emulator`) at `managementUrl`, the messaging API at `messagingUrl`, with their security
 * schemes, and the webhook events as `webhooks`. Every operation and schema comes from the
 * route schemas, which come from the contract. `routes` is shared: it is not changed.
 */
export function placeDocument(routes: RoutesDocument, urls: { managementUrl?: string; messagingUrl?: string } = {}): OpenApiDocument {
  const paths = { ...routes.paths };
  if (urls.messagingUrl) for (const path of routes.messagingPaths) paths[path] = { ...paths[path], servers: [{ url: urls.messagingUrl, description: 'messaging API' }] };
  return {
    openapi: '3.1.0',
    info: {
      title: 'plugsmith platform API (emulator)',
      version: '1',
      description:
        'The management API (/api), the messaging API (/conversations) and the emulator admin API (/_emulator), as the plugsmith emulator serves them. Every JSON response is { ok: true, data, meta? } or { ok: false, error: { message, error, details? } }.',
    },
    servers: [{ url: urls.managementUrl ?? 'http://127.0.0.1:4010', description: 'management and admin API' }],
    tags: [
      { name: 'management', description: 'The management API (/api)' },
      { name: 'messaging', description: `The messaging API (/conversations), served at ${urls.messagingUrl ?? 'its own port'}` },
      { name: 'admin', description: 'The emulator admin API (/_emulator)' },
    ],
    paths,
    webhooks: routes.webhooks,
    components: { schemas: routes.components.schemas, securitySchemes: SECURITY_SCHEMES },
  };
}

/** Builds the routes' document (not shared) and places it at `urls`. */
export async function buildOpenApiDocument(
  builders: { management: AppBuilder; messaging: AppBuilder },
  urls: { managementUrl?: string; messagingUrl?: string } = {},
): Promise<OpenApiDocument> {
  return placeDocument(await buildRoutesDocument(builders), urls);
}
