// Pure data (no Node built-ins): `plugsmith trigger` and the dashboard's Trigger view send the same
// sample events.
import type { EventKind } from '../contract/enums.js';
import agentMessage from './AGENT_MESSAGE_RECEIVED.json' with { type: 'json' };
import installed from './PLUGIN_INSTALLED.json' with { type: 'json' };
import uninstalled from './PLUGIN_UNINSTALLED.json' with { type: 'json' };
import fileAdded from './REPOSITORY_FILE_ADDED.json' with { type: 'json' };
import fileRemoved from './REPOSITORY_FILE_REMOVED.json' with { type: 'json' };
import challenge from './WEBHOOK_CHALLENGE.json' with { type: 'json' };

export { fill } from './fill.js';

/** A sample event kept as data: `data` with `{{placeholders}}` where real ids go, and their `defaults`. */
export interface SampleEvent {
  description: string;
  defaults: Record<string, unknown>;
  data: Record<string, unknown>;
}

/** One sample of each event kind. */
export const SAMPLE_EVENTS: Record<EventKind, SampleEvent> = {
  WEBHOOK_CHALLENGE: challenge,
  PLUGIN_INSTALLED: installed,
  PLUGIN_UNINSTALLED: uninstalled,
  AGENT_MESSAGE_RECEIVED: agentMessage,
  REPOSITORY_FILE_ADDED: fileAdded,
  REPOSITORY_FILE_REMOVED: fileRemoved,
};
