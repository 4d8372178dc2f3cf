import { createRequire } from 'node:module';
import type { Dispatcher, EnvHttpProxyAgent } from 'undici';

// undici's package root loads everything it has (fetch, WebSocket, EventSource, caches, mocks):
// about 150 ms, most of a CLI command's start. The client needs only `request` on a dispatcher
// and the proxy-aware agent, which load in a third of that. These are undici's own modules,
// reached by path; package.json pins undici to the 7.30 line they were checked against.
const load = createRequire(import.meta.url);

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Dispatcher.HttpMethod;
  dispatcher: Dispatcher;
};

let apiRequest: ((this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>) | undefined;

/** undici's `request(url, options)`, always on the given dispatcher. */
export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  apiRequest ??= load('undici/lib/api/api-request.js') as typeof apiRequest;
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest!.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Dispatcher.RequestOptions);
}

/** undici's EnvHttpProxyAgent (honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY). */
export function createEnvHttpProxyAgent(options: ConstructorParameters<typeof EnvHttpProxyAgent>[0]): Dispatcher {
  const Agent = load('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof EnvHttpProxyAgent;
  return new Agent(options);
}
