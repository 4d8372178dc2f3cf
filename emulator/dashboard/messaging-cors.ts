import type { FastifyInstance } from 'fastify';
import { ownHostNames, type AdminAccess } from '../admin/guard.js';
import type { DashboardDeps } from './routes.js';

/** What the messaging CORS needs: the management URL and the names the admin API answers under. */
type CorsDeps = Pick<DashboardDeps, 'config'> & { admin: Pick<AdminAccess, 'host' | 'adminHosts'> };

const ALLOWED_HEADERS = 'authorization, content-type, last-event-id';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/** Whether an Origin is the emulator's own dashboard: http, a name the admin API answers under (never a DNS-rebinding one), the management port. */
function dashboardOrigin(services: CorsDeps): (origin: string) => boolean {
  const { host, adminHosts } = services.admin;
  const isOwnName = ownHostNames(host, adminHosts);
  return (origin) => {
    if (!URL.canParse(origin)) return false;
    const url = new URL(origin);
    const port = new URL(services.config.publicUrl()).port;
    return (
      url.protocol === 'http:' &&
      url.origin === origin &&
      url.port === port &&
      isOwnName(url.hostname.replace(/^\[|\]$/g, ''))
    );
  };
}

/** CORS on the messaging API for the emulator's own dashboard only (another origin); other pages get no CORS headers and read nothing. */
export function installMessagingCors(app: FastifyInstance, services: CorsDeps): void {
  const isDashboard = dashboardOrigin(services);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !isDashboard(origin)) return;
    // On the raw response: event streams are hijacked and write their own head, which keeps these.
    reply.raw.setHeader('access-control-allow-origin', origin);
    reply.raw.setHeader('vary', 'Origin');
    if (
      request.method === 'OPTIONS' &&
      typeof request.headers['access-control-request-method'] === 'string'
    ) {
      reply.raw.setHeader('access-control-allow-methods', ALLOWED_METHODS);
      reply.raw.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
      reply.raw.setHeader('access-control-max-age', '600');
      return reply.status(204).send();
    }
  });
}
