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
 * Every operation that writes may meet a full disk: a 507 INSUFFICIENT_STORAGE in the error
 * envelope (http.ts answers it for ENOSPC and EDQUOT), declared beside the operation's other errors.
 */
function declareDiskFull(method: string, operation: any): void {
  if (method === 'get' || method === 'head' || !operation.responses || operation.responses['507']) return;
  const error = Object.values<any>(operation.responses).find((r) => String(r?.content?.['application/json']?.schema?.$ref ?? '').endsWith('/ErrorEnvelope'));
  if (error) operation.responses['507'] = { ...error, description: 'The disk holding the emulator\'s data is full (ENOSPC) or over quota: nothing was stored; the connection closes' };
}

/**
 * The OpenAPI 3.1 document of the three APIs: the management API (`/api`) and the admin API
 * (`/_emulator`) at `managementUrl`, the messaging API at `messagingUrl`, with their security
 * schemes, and the webhook events as `webhooks`. Every operation and schema comes from the
 * route schemas, which come from the contract.
 */
export async function buildOpenApiDocument(
  builders: { management: AppBuilder; messaging: AppBuilder },
  urls: { managementUrl?: string; messagingUrl?: string } = {},
): Promise<OpenApiDocument> {
  const documentOf = async (build: AppBuilder) => {
    const app = await build(collector);
    await app.ready();
    // Not closed: it never listened, and closing would run the shared services' close hooks.
    return app.swagger() as OpenApiDocument;
  };
  const management = await documentOf(builders.management);
  const messaging = await documentOf(builders.messaging);
  const paths: Record<string, any> = {};
  const add = (doc: OpenApiDocument, api: 'management' | 'messaging') => {
    for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
      const raw = path.replace(/\{(\w+)\}/g, ':$1');
      for (const [method, operation] of Object.entries<any>(item)) {
        if (typeof operation !== 'object' || operation === null) continue;
        operation.security = securityOf(raw, api);
        operation.tags ??= [path.startsWith('/_emulator') ? 'admin' : api];
        liftExamples(operation);
        declareDiskFull(method, operation);
      }
      if (api === 'messaging' && urls.messagingUrl) item.servers = [{ url: urls.messagingUrl, description: 'messaging API' }];
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
    webhooks,
    components: {
      schemas: { ...(management.components?.schemas ?? {}), ...(messaging.components?.schemas ?? {}) },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
