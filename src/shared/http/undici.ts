import { Agent, type Dispatcher } from 'undici';

// The emulator's HTTP client (webhook deliveries, the LLM backend): undici's public API.
export { request } from 'undici';

/** An undici Agent (connection pools per origin). */
export function createAgent(options?: Agent.Options): Dispatcher {
  return new Agent(options);
}
