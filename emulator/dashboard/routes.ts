import type { FastifyInstance, FastifyReply } from 'fastify';
import { ok } from '../http.js';
import { typed } from '../api/common.js';
import { unauthorized } from '../errors.js';
import {
  DashboardLinkSchema,
  DashboardLoginSchema,
  DashboardSessionSchema,
  DashboardSignedOutSchema,
  Ok,
  WorkspaceSchema,
  errorResponses,
  type Workspace,
} from '#contract';
import { SESSION_HEADER, type DashboardLogins } from '../admin/dashboard-logins.js';
import { ADMIN_ONLY } from '../admin/common.js';
import { DASHBOARD_FILES, readDashboardFile, type DashboardFile } from './files.js';
import type { EmulatorConfig, StoreDeps } from '../context.js';
import type { ObjectStorage } from '../uploads/storage/types.js';
import { NO_CREDENTIAL } from '../open-route.js';

/** What the dashboard needs: the store, the emulator's settings (URLs, credentials) and the storage (its origin). */
export interface DashboardDeps extends StoreDeps {
  config: EmulatorConfig;
  storage: ObjectStorage;
}

interface DashboardRouteOptions {
  services: DashboardDeps;
  logins: DashboardLogins;
  /** Where the built files are; default the package's `dist/dashboard` (tests point it elsewhere). */
  filesDir?: string | null;
}

/** The dashboard's link for a fresh login code: the code rides in the fragment, which no server, log or Referer sees. */
export function dashboardLink(services: DashboardDeps, logins: DashboardLogins): string {
  return `${services.config.publicUrl()}/_emulator/dashboard/#login=${logins.mintCode()}`;
}

/** The page's security headers: it talks to itself, the messaging API and the object store only, is framed by nothing, and sends no Referer. */
function securityHeaders(services: DashboardDeps): Record<string, string> {
  const connect = new Set(["'self'"]);
  for (const url of [services.config.messagingUrl(), services.storage.publicUrl('public/x')]) {
    if (URL.canParse(url)) connect.add(new URL(url).origin);
  }
  return {
    'content-security-policy': [
      "default-src 'self'",
      `connect-src ${[...connect].join(' ')}`,
      "img-src 'self' data: blob:",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
}

/** The default workspace as the dashboard sees it. */
function workspaceOf(services: DashboardDeps): Workspace {
  return {
    managementUrl: services.config.publicUrl(),
    messagingUrl: services.config.messagingUrl(),
    ...services.config.credentials,
    storeId: services.config.storeId,
    persistent: services.store.persistent,
    dataDir: services.config.dataDir,
  };
}

/** The dashboard under `/_emulator/dashboard` (inside the admin surface's guard): its files, its session from a one-time login code, new login links. */
export default async function dashboardRoutes(
  fastify: FastifyInstance,
  { services, logins, filesDir }: DashboardRouteOptions,
): Promise<void> {
  const app = typed(fastify);

  async function sendFile(reply: FastifyReply, name: DashboardFile) {
    reply.headers(securityHeaders(services));
    const body = await readDashboardFile(name, filesDir);
    if (body === null) {
      return reply
        .status(503)
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><title>plugsmith dashboard</title><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> in the plugsmith package, then reload this page.</p>',
        );
    }
    return reply.type(DASHBOARD_FILES[name]).send(body);
  }

  // Relative asset URLs (./app.js) resolve under the folder only with the trailing slash; the fragment survives the redirect.
  app.get('/dashboard', { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/_emulator/dashboard/', 302),
  );
  app.get('/dashboard/', { schema: { hide: true } }, async (_request, reply) =>
    sendFile(reply, 'index.html'),
  );
  app.get('/dashboard/app.js', { schema: { hide: true } }, async (_request, reply) =>
    sendFile(reply, 'app.js'),
  );
  app.get('/dashboard/app.css', { schema: { hide: true } }, async (_request, reply) =>
    sendFile(reply, 'app.css'),
  );

  app.post(
    '/dashboard/session',
    {
      schema: {
        operationId: 'createDashboardSession',
        tags: ['admin-dashboard'],
        summary: 'Exchange a login code for a dashboard session',
        description:
          'Anyone holding a single-use login code (from a dashboard login link) exchanges it for a dashboard session token, sent as `x-plugsmith-session` afterwards, and the workspace; no cookie is set. The code in the body is the credential: no header is needed, but only this machine is answered.',
        security: NO_CREDENTIAL,
        body: DashboardLoginSchema,
        response: { 200: Ok(DashboardSessionSchema), ...errorResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request) => {
      const session = logins.redeem(request.body.code);
      if (session === null) {
        throw unauthorized(
          'This dashboard login link was already used or is not from this emulator (each link works once): run `plugsmith emulator dashboard --open` for a new one',
        );
      }
      return ok({ ...workspaceOf(services), session });
    },
  );

  // The guard has checked the session header or the admin header already.
  app.get(
    '/dashboard/session',
    {
      schema: {
        operationId: 'getDashboardSession',
        tags: ['admin-dashboard'],
        summary: 'Get the current dashboard session',
        description:
          'With a dashboard session (or the admin token): answers the workspace the session works in.',
        response: { 200: Ok(WorkspaceSchema), ...errorResponses(401, 403) },
      },
    },
    async () => ok(workspaceOf(services)),
  );

  app.delete(
    '/dashboard/session',
    {
      schema: {
        operationId: 'deleteDashboardSession',
        tags: ['admin-dashboard'],
        summary: 'End the dashboard session',
        description:
          'With a dashboard session: ends the session its `x-plugsmith-session` header names; that token is refused afterwards.',
        response: { 200: Ok(DashboardSignedOutSchema), ...errorResponses(401, 403, 415) },
      },
    },
    async (request) => {
      const session = request.headers[SESSION_HEADER];
      logins.end(Array.isArray(session) ? session[0] : session);
      return ok({ signedOut: true as const });
    },
  );

  app.post(
    '/dashboard/login-links',
    {
      schema: {
        operationId: 'createDashboardLoginLink',
        tags: ['admin-dashboard'],
        summary: 'Create a dashboard login link',
        description: `${ADMIN_ONLY} creates a fresh single-use dashboard login link (a URL with a login code).`,
        response: { 200: Ok(DashboardLinkSchema), ...errorResponses(401, 403, 415) },
      },
    },
    async () => {
      return ok({ dashboardUrl: dashboardLink(services, logins) });
    },
  );
}
