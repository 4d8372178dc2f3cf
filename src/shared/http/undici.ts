import { createRequire } from 'node:module';
import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';

/**
 * The one place that reaches into undici's internals. Its package root loads everything (fetch,
 * WebSocket, caches…: ~150 ms of a command's start), so the three modules we need are required by
 * path. Those paths are not public API: package.json pins this line and test/http/undici.test.ts
 * fails when undici leaves it or the modules move, so an upgrade is deliberate.
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

let apiRequest:
  | ((this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>)
  | undefined;

/** undici's `request(url, options)` on the given dispatcher. */
export function request(
  url: string | URL,
  options: RequestOptions,
): Promise<Dispatcher.ResponseData> {
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
  return new (load(UNDICI_DEEP_MODULES.agent) as typeof Agent)(options);
}

/** undici's EnvHttpProxyAgent (honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY). */
export function createEnvHttpProxyAgent(
  options?: ConstructorParameters<typeof EnvHttpProxyAgent>[0],
): Dispatcher {
  return new (load(UNDICI_DEEP_MODULES.envHttpProxyAgent) as typeof EnvHttpProxyAgent)(options);
}
