import type { Dispatcher } from 'undici';
import { Api } from './api.js';
import { env } from '../config/env.js';
import { httpUrlProblem } from '../config/url.js';
import { agentMessagesResource } from './resources/agent-messages.js';
import { emulatorAdminResource } from './resources/emulator-admin.js';
import { dataProvidersResource, entityPluginsResource } from './resources/instances.js';
import { messagingResource } from './resources/messaging.js';
import { namedUnderPlugin } from './resources/plugin-children.js';
import { pluginsResource } from './resources/plugins.js';
import { repositoriesResource } from './resources/repositories.js';
import { tokensResource } from './resources/tokens.js';
import { uploadsResource } from './resources/uploads.js';
import { Transport, type CallOptions, type TransportConfig } from './transport.js';
import type {
  Action,
  ActionCreate,
  ActionUpdate,
  ExternalEvent,
  ExternalEventCreate,
  ExternalEventUpdate,
  Meta,
} from './types.js';

/** Options of `createClient`. */
export interface ClientOptions extends Partial<Omit<TransportConfig, 'dispatcher'>> {
  /** undici dispatcher to send through; default: undici's EnvHttpProxyAgent when HTTPS_PROXY or HTTP_PROXY is set (NO_PROXY honoured), else node:http(s) directly. */
  dispatcher?: Dispatcher;
  /** Management API base URL (paths start with /api), e.g. `http://127.0.0.1:4010`. */
  baseUrl: string;
  /** Messaging API base URL (paths start with /conversations). */
  messagingUrl?: string;
  /** User or instance token, sent as `Authorization: Bearer <token>` to the management API. */
  token?: string;
  /** API key, sent as `Authorization: Bearer <apiKey>` to the messaging API. */
  apiKey?: string;
  /** The emulator's admin credential, sent as `x-plugsmith-admin` on `/_emulator` calls only (never to /api or the messaging API). */
  adminToken?: string;
}

/** The header that carries the emulator's admin credential. */
export const ADMIN_HEADER = 'x-plugsmith-admin';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_RETRY_BASE_MS = 250;
export const DEFAULT_USER_AGENT = 'plugsmith-client';

/** A typed client of the platform's management and messaging APIs (and the emulator's admin API). */
export class PlatformClient {
  readonly baseUrl: string;
  readonly messagingUrl: string | undefined;
  readonly tokens;
  readonly plugins;
  /** Plugin actions: /api/plugins/:pluginId/actions[/:name]. */
  readonly actions;
  /** Plugin external events: /api/plugins/:pluginId/external-events[/:eventName]. */
  readonly externalEvents;
  readonly repositories;
  /** Data providers: /api/repositories/:repositoryId/data-providers. */
  readonly dataProviders;
  /** Event-handler instances on agents: /api/agents/:agentId/plugins (emulator contract). */
  readonly agentPlugins;
  /** APP instances on apps: /api/apps/:appId/plugins (emulator contract). */
  readonly appPlugins;
  readonly agentMessages;
  readonly uploads;
  readonly messaging;
  /** The emulator's admin API under /_emulator; only the emulator answers it. */
  readonly emulator;

  private readonly options: ClientOptions;
  private readonly apis: { management: Api; messaging: Api; admin: Api };
  private readonly dispatcher: Promise<Dispatcher | undefined>;
  private readonly ownsDispatcher: boolean;

  constructor(options: ClientOptions, sharedDispatcher?: Promise<Dispatcher | undefined>) {
    this.options = options;
    this.baseUrl = normalizeBaseUrl(options.baseUrl, 'baseUrl');
    this.messagingUrl =
      options.messagingUrl === undefined
        ? undefined
        : normalizeBaseUrl(options.messagingUrl, 'messagingUrl');
    this.ownsDispatcher = options.dispatcher === undefined && sharedDispatcher === undefined;
    this.dispatcher = options.dispatcher
      ? Promise.resolve(options.dispatcher)
      : (sharedDispatcher ?? proxyFromEnvironment());
    const transport = new Transport({
      dispatcher: this.dispatcher,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: options.retries ?? DEFAULT_RETRIES,
      retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS,
      onTrace: options.onTrace,
      retryOnTimeout: options.retryOnTimeout ?? true,
      onSlowRequest: options.onSlowRequest,
      slowRequestMs: options.slowRequestMs ?? 2_000,
    });
    const management = new Api(transport, 'management', this.baseUrl, () => bearer(options.token));
    const messaging = new Api(transport, 'messaging', this.messagingUrl, () =>
      bearer(options.apiKey),
    );

    this.tokens = tokensResource(management);
    this.plugins = pluginsResource(management);
    this.actions = namedUnderPlugin<Action, ActionCreate, ActionUpdate>(management, 'actions');
    this.externalEvents = namedUnderPlugin<ExternalEvent, ExternalEventCreate, ExternalEventUpdate>(
      management,
      'external-events',
    );
    this.repositories = repositoriesResource(management);
    this.dataProviders = dataProvidersResource(management);
    this.agentPlugins = entityPluginsResource(management, 'AGENT');
    this.appPlugins = entityPluginsResource(management, 'APP');
    this.agentMessages = agentMessagesResource(management);
    this.uploads = uploadsResource(management, transport);
    this.messaging = messagingResource(messaging);
    // The admin credential goes only to the emulator's admin API, never to /api or messaging.
    const emulatorAdmin = new Api(
      transport,
      'management',
      this.baseUrl,
      () => bearer(options.token),
      () => (options.adminToken ? { [ADMIN_HEADER]: options.adminToken } : undefined),
    );
    this.emulator = emulatorAdminResource(emulatorAdmin);
    this.apis = { management, messaging, admin: emulatorAdmin };
  }

  /**
   * One request to any path of an API, as given (`path` starts with `/`; the query as pairs): the answer's status, `data`
   * and `meta`, or an ApiError. A management path under `/_emulator` carries the admin credential, as the admin API does.
   */
  request<T = unknown>(
    api: 'management' | 'messaging',
    method: string,
    path: string,
    init: { query?: Array<[string, string]>; body?: unknown; options?: CallOptions } = {},
  ): Promise<{ status: number; data: T; meta?: Meta }> {
    const admin = api === 'management' && /^\/_emulator(?:[/?]|$)/.test(path);
    return this.apis[admin ? 'admin' : api].call<T>(method, path, init);
  }

  /** A client with some options changed (e.g. an instance token) sharing this one's connections. */
  withOptions(overrides: Partial<ClientOptions>): PlatformClient {
    const dispatcher = overrides.dispatcher
      ? Promise.resolve(overrides.dispatcher)
      : this.dispatcher;
    return new PlatformClient({ ...this.options, ...overrides }, dispatcher);
  }

  /** Closes the connections of the dispatcher this client created (not one passed in). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await (await this.dispatcher)?.close();
  }
}

/**
 * undici's EnvHttpProxyAgent when the environment names a proxy, else none (node:http(s) then sends
 * directly). undici is imported only for a proxy: budget `plugsmith plugins list --json` <= 400 ms.
 */
async function proxyFromEnvironment(): Promise<Dispatcher | undefined> {
  const httpProxy = env.httpProxy();
  const httpsProxy = env.httpsProxy() ?? httpProxy;
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  const { EnvHttpProxyAgent } = await import('undici');
  return new EnvHttpProxyAgent({
    // Given, so that an empty variable of the other spelling does not hide these (undici reads lowercase first, empty or not).
    httpProxy: httpProxy ?? '',
    httpsProxy: httpsProxy ?? '',
    noProxy: env.noProxy() ?? '',
    // http:// targets go to the proxy as absolute-URL requests: many proxies refuse CONNECT to port 80.
    proxyTunnel: false,
  });
}

/** Creates a PlatformClient. */
export function createClient(options: ClientOptions): PlatformClient {
  return new PlatformClient(options);
}

function bearer(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return undefined;
  return /^bearer\s/i.test(secret) ? secret : `Bearer ${secret}`;
}

function normalizeBaseUrl(value: string, name: string): string {
  const problem = httpUrlProblem(value);
  if (problem) throw new TypeError(`${name} ${problem}`);
  return new URL(value).toString().replace(/\/+$/, '');
}
