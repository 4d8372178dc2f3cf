import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';

// undici's package root also loads fetch, WebSocket, EventSource and caches (~150 ms at start).
// The emulator only sends requests through an Agent, which loads in a third of that. These are
// undici's own modules, reached by path; package.json pins undici to the 7.30 line.
const load = createRequire(import.meta.url);

let apiRequest: ((this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>) | undefined;
let shared: Dispatcher | undefined;

/** An undici Agent (connection pools per origin). */
export function createAgent(options?: ConstructorParameters<typeof Agent>[0]): Dispatcher {
  const AgentClass = load('undici/lib/dispatcher/agent.js') as typeof Agent;
  return new AgentClass(options);
}

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Dispatcher.HttpMethod;
  /** Default: one Agent shared by the emulator's outgoing requests. */
  dispatcher?: Dispatcher;
};

/** undici's `request(url, options)`. */
export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  apiRequest ??= load('undici/lib/api/api-request.js') as typeof apiRequest;
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest!.call(dispatcher ?? (shared ??= createAgent()), {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Dispatcher.RequestOptions);
}
