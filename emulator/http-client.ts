import type { Dispatcher } from 'undici';
import { createAgent, request as undiciRequest, type RequestOptions as UndiciRequestOptions } from '../src/http/undici.js';

export { createAgent };

let shared: Dispatcher | undefined;

type RequestOptions = Omit<UndiciRequestOptions, 'dispatcher'> & {
  /** Default: one Agent shared by the emulator's outgoing requests. */
  dispatcher?: Dispatcher;
};

/** undici's `request(url, options)`, on the emulator's shared Agent unless given another dispatcher. */
export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  return undiciRequest(url, { ...options, dispatcher: options.dispatcher ?? (shared ??= createAgent()) });
}
