import type { Dispatcher } from 'undici';
import { createAgent, request as undiciRequest, type RequestOptions } from '../src/http/undici.js';

let shared: Dispatcher | undefined;

/** undici's `request(url, options)` on one Agent shared by the emulator's outgoing requests. */
export function request(url: string | URL, options: Omit<RequestOptions, 'dispatcher'>): Promise<Dispatcher.ResponseData> {
  return undiciRequest(url, { ...options, dispatcher: (shared ??= createAgent()) });
}
