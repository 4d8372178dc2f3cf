import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyRequest,
  type onRequestHookHandler,
} from 'fastify';
import type { EmulatorConfig, StoreDeps } from './context.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';
import type { PluginOutputLog } from './plugin-output/service.js';
import type { Messaging } from './messaging/messaging.js';
import type { ObjectStorage } from './uploads/storage/types.js';
import type { AdminSettings } from './admin/guard.js';
import {
  AJV_OPTIONS,
  clientErrorHandler,
  frameworkErrors,
  installErrorHandling,
  sendError,
} from './http.js';
import { installLazyCompilers } from './schema-compilers.js';
import { SHARED_SCHEMAS } from '#contract';
import { principalFromHeader } from './auth/principal.js';
import { unauthorized, type HttpError } from './errors.js';
import pluginRoutes from './api/plugins/routes.js';
import { actionRoutes, externalEventRoutes } from './api/plugin-definitions/routes.js';
import repositoryRoutes from './api/repositories/routes.js';
import tokenRoutes from './api/tokens/routes.js';
import instanceRoutes from './api/instances/routes.js';
import webhookRoutes from './api/plugins/webhook.js';
import conversationRoutes from './messaging/routes.js';
import agentMessageRoutes from './messaging/agent-messages.js';
import uploadRoutes from './uploads/routes.js';
import repositoryFileRoutes from './api/repositories/files.js';
import { EmbeddedStorage } from './uploads/storage/embedded.js';
import { embeddedStorageRoutes } from './uploads/storage/embedded-routes.js';
import { installJsonBodyParser } from './json-body.js';
import adminSurface from './admin/index.js';
import { forwardToAdminApp } from './admin/forward.js';
import { placeDocument, sharedRoutesDocument } from './openapi/document.js';
import type { OpenApiDocument } from './openapi/operations.js';
import { installContractCheck } from './openapi/contract-check.js';
import { fileObjectRecords } from './uploads/object-records.js';
import { apiKeyFromHeader } from './messaging/api-key-auth.js';
import { installMessagingCors } from './dashboard/messaging-cors.js';
import { isUnderPrefix } from './route-path.js';
import { takesNoCredential } from './open-route.js';
import type { RouteOptions as ApiRouteOptions } from './api/common.js';
import {
  boundSlowBodies,
  boundUnauthenticatedBodies,
  DEFAULT_UNAUTHENTICATED_BODY_BOUND,
} from './slow-body.js';
import { admitUnauthenticatedBody, boundConnections } from './connection-bound.js';

/** What the routes of one running emulator share, built in dependency order by startEmulator(); each feature takes the part its deps type declares. */
export interface EmulatorServices extends StoreDeps {
  config: EmulatorConfig;
  /** Who may call the admin surface (`/_emulator`), and the dashboard's logins. */
  admin: AdminSettings;
  /** Webhook delivery: emit events to plugins, the delivery log, challenges. */
  dispatcher: WebhookDispatcher;
  /** Conversations, character replies in packets, conversation streams. */
  messaging: Messaging;
  /** Object storage for uploads: the embedded store, or S3/MinIO. */
  storage: ObjectStorage;
  /** The plugins' own output (posted by the CLI), kept per plugin and linked to delivery attempts. */
  pluginOutput: PluginOutputLog;
  /** Empties the store and loads the seed again (the admin API's reset). */
  reset: () => Promise<void>;
}

/** The route modules of /api, in the order they are registered. */
const API_ROUTES: Array<FastifyPluginAsync<ApiRouteOptions<EmulatorServices>>> = [
  tokenRoutes,
  pluginRoutes,
  actionRoutes,
  externalEventRoutes,
  repositoryRoutes,
  webhookRoutes,
  instanceRoutes,
  agentMessageRoutes,
  uploadRoutes,
  repositoryFileRoutes,
];

/** Largest JSON body the management API reads (uploads go to storage URLs, not here). */
const BODY_LIMIT = 1024 * 1024;

/** The fastify options both apps share. */
const APP_OPTIONS = {
  logger: false,
  bodyLimit: BODY_LIMIT,
  forceCloseConnections: true,
  clientErrorHandler,
} as const;

/** A new app: error envelope, slow-body bound, JSON parser, shared schemas, then the contract check, or else `install`. */
async function newApp(
  services: EmulatorServices,
  errors: typeof frameworkErrors,
  install: ((app: FastifyInstance) => Promise<void>) | undefined,
): Promise<FastifyInstance> {
  const app = Fastify({ ...APP_OPTIONS, frameworkErrors: errors });
  // Route schemas compiled at first use, by fastify's ajv with AJV_OPTIONS. Budget: `startEmulator()` <= 50 ms (all at start: ~180 ms CPU).
  installLazyCompilers(app, AJV_OPTIONS);
  installErrorHandling(app);
  boundSlowBodies(app, services.config.slowBodies);
  // Sockets are bounded apart from requests: a connection that never completes a head reaches no hook.
  boundConnections(app.server, services.config.connections);
  // A body read without a credential a guard recognised is small and quick, and strangers leave a reserve of connections.
  boundUnauthenticatedBodies(
    app,
    services.config.unauthenticatedBodies ?? DEFAULT_UNAUTHENTICATED_BODY_BOUND,
    admitUnauthenticatedBody,
  );
  installJsonBodyParser(app);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  // `install` (the OpenAPI document's route collector) takes the place of the contract check.
  if (install) await install(app);
  else if (services.config.contractCheck)
    installContractCheck(app, () => openApiDocument(services));
  return app;
}

/** Authenticates /api callers before the body is read, so a bad token hears only the 401. */
export function apiAuthentication(services: EmulatorServices): onRequestHookHandler {
  return (request, _reply, done) => {
    try {
      request.principal = principalFromHeader(services.db, request.headers.authorization);
      if (request.principal === null && !takesNoCredential(request)) throw unauthorized();
    } catch (refusal) {
      return done(refusal as Error);
    }
    done();
  };
}

/** `frameworkErrors` for an API with credentials: a caller `authenticate` refuses hears the 401 first, even for a URL the router refused. */
function credentialsFirst(authenticate: (request: FastifyRequest) => void): typeof frameworkErrors {
  return (error, request, reply) => {
    try {
      authenticate(request);
    } catch (refusal) {
      const { type, message, status } = refusal as HttpError;
      return sendError(reply, type, message, undefined, status);
    }
    return frameworkErrors(error, request, reply);
  };
}

/** Builds the management API app (`/api/…`, `/_storage/…` and the admin API `/_emulator/…`); never listens. */
export async function buildManagementApp(
  services: EmulatorServices,
  install?: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyInstance> {
  const apiFrameworkErrors = credentialsFirst((request) => {
    if (
      isUnderPrefix(request.url, '/api') &&
      principalFromHeader(services.db, request.headers.authorization) === null
    )
      throw unauthorized();
  });
  const app = await newApp(services, apiFrameworkErrors, install);
  app.decorateRequest('principal', null);
  const opts = { services };
  await app.register(
    async (api: FastifyInstance) => {
      // The one guard of /api: the router decides what it guards, whatever spelling reached it (`/%61pi/…`), never a raw-URL test.
      api.addHook('onRequest', apiAuthentication(services));
      for (const routes of API_ROUTES) await api.register(routes, opts);
    },
    { prefix: '/api' },
  );
  if (services.storage instanceof EmbeddedStorage)
    await app.register(embeddedStorageRoutes(services.storage, fileObjectRecords(services.db)), {
      prefix: '/_storage',
    });
  // The document describes every /_emulator route: its app registers them as they are served.
  if (install) await app.register(adminSurface, adminOptions(services));
  else {
    // Built at its first request. Budget: `startEmulator()` <= 50 ms (its routes at start: ~44 ms CPU, not ~22).
    forwardToAdminApp(app, async () => {
      const admin = await newApp(services, frameworkErrors, undefined);
      await admin.register(adminSurface, adminOptions(services));
      await admin.ready();
      return admin;
    });
  }
  return app;
}

function adminOptions(services: EmulatorServices) {
  return {
    services,
    access: services.admin,
    prefix: '/_emulator',
    openapi: () => openApiDocument(services),
  };
}

/** The OpenAPI document, built on first request; its routes' part is built once per process, then placed at this emulator's URLs. */
export function openApiDocument(services: EmulatorServices): Promise<OpenApiDocument> {
  const known = documents.get(services);
  if (known) return known;
  const document = buildDocument(services);
  documents.set(services, document);
  return document;
}
const documents = new WeakMap<EmulatorServices, Promise<OpenApiDocument>>();

async function buildDocument(services: EmulatorServices): Promise<OpenApiDocument> {
  const routes = await sharedRoutesDocument({
    management: (install) => buildManagementApp(services, install),
    messaging: (install) => buildMessagingApp(services, install),
  });
  return placeDocument(routes, {
    managementUrl: services.config.publicUrl(),
    messagingUrl: services.config.messagingUrl(),
  });
}

/** Builds the messaging API app (`/conversations…`); never listens. */
export async function buildMessagingApp(
  services: EmulatorServices,
  install?: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyInstance> {
  const app = await newApp(
    services,
    credentialsFirst((request) => apiKeyFromHeader(services, request.headers.authorization)),
    install,
  );
  // Before the routes' own hooks: a preflight carries no API key.
  installMessagingCors(app, services);
  await app.register(conversationRoutes, { services });
  // SSE streams are hijacked responses: end them, or close() would wait for their clients.
  app.addHook('preClose', async () => services.messaging.streams.closeAll());
  return app;
}
