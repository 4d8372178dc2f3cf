import { createRequire } from 'node:module';
import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';

/**
 * The one place that reaches into undici's internals, for the client and the emulator alike.
 *
 * undici's package root loads everything it has (fetch, WebSocket, EventSource, caches, mocks):
 * about 150 ms, most of a CLI command's start. We need only `request` on a dispatcher, the Agent
 * and the proxy-aware agent, which load in a third of that, so they are required by path. Those
 * paths are not undici's public API: package.json pins undici to the line below
 * (`~7.30`), and test/http/undici.test.ts fails when the installed undici leaves it or the
 * modules move, so an upgrade is a deliberate step.
 */
export const UNDICI_LINE = '7.30';

/** The undici modules this shim requires by path, relative to the package. */
export const UNDICI_DEEP_MODULES = {
  request: 'undici/lib/api/api-request.js',
  agent: 'undici/lib/dispatcher/agent.js',
  envHttpProxyAgent: 'undici/lib/dispatcher/env-http-proxy-agent.js',
} as const;

const load = createRequire(import.meta.url);

/** `request` options: undici's, with the URL given whole and the dispatcher named. */
export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Dispatcher.HttpMethod;
  dispatcher: Dispatcher;
};

let apiRequest: ((this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>) | undefined;

/** undici's `request(url, options)` on the given dispatcher. */
export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  apiRequest ??= load(UNDICI_DEEP_MODULES.request) as typeof apiRequest;
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest!.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Dispatcher.RequestOptions);
}

/** An undici Agent (connection pools per origin). */
export function createAgent(options?: ConstructorParameters<typeof Agent>[0]): Dispatcher {
  const AgentClass = load(UNDICI_DEEP_MODULES.agent) as typeof Agent;
  return new AgentClass(options);
}

/** undici's EnvHttpProxyAgent (honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY). */
export function createEnvHttpProxyAgent(options?: ConstructorParameters<typeof EnvHttpProxyAgent>[0]): Dispatcher {
  const AgentClass = load(UNDICI_DEEP_MODULES.envHttpProxyAgent) as typeof EnvHttpProxyAgent;
  return new AgentClass(options);
}
