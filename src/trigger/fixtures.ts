import { randomBytes } from 'node:crypto';
import challenge from './fixtures/WEBHOOK_CHALLENGE.json' with { type: 'json' };
import installed from './fixtures/PLUGIN_INSTALLED.json' with { type: 'json' };
import uninstalled from './fixtures/PLUGIN_UNINSTALLED.json' with { type: 'json' };
import agentMessage from './fixtures/AGENT_MESSAGE_RECEIVED.json' with { type: 'json' };
import fileAdded from './fixtures/REPOSITORY_FILE_ADDED.json' with { type: 'json' };
import fileRemoved from './fixtures/REPOSITORY_FILE_REMOVED.json' with { type: 'json' };
import { EVENT_TYPES, type WebhookEventType } from '../webhooks/events.js';
import { UserError, EXIT } from '../errors.js';
import { fill } from './fill.js';
import { didYouMean } from '../ui/did-you-mean.js';

/** A sample event kept as data: `data` with `{{placeholders}}` where real ids go, and their `defaults`. */
interface EventFixture {
  type: WebhookEventType;
  description: string;
  defaults: Record<string, unknown>;
  data: Record<string, unknown>;
}

const FIXTURES: Record<WebhookEventType, EventFixture> = {
  WEBHOOK_CHALLENGE: challenge as EventFixture,
  PLUGIN_INSTALLED: installed as EventFixture,
  PLUGIN_UNINSTALLED: uninstalled as EventFixture,
  AGENT_MESSAGE_RECEIVED: agentMessage as EventFixture,
  REPOSITORY_FILE_ADDED: fileAdded as EventFixture,
  REPOSITORY_FILE_REMOVED: fileRemoved as EventFixture,
};

/** The event type named on the command line (case-insensitive), or a usage error listing the known ones. */
export function eventTypeOf(name: string): WebhookEventType {
  const upper = name.toUpperCase();
  if ((EVENT_TYPES as readonly string[]).includes(upper)) return upper as WebhookEventType;
  throw new UserError(
    `unknown event type "${name}": use one of ${EVENT_TYPES.join(', ')}${didYouMean(upper, EVENT_TYPES)}`,
    EXIT.USAGE,
  );
}

/** The values a fixture's placeholders take: its defaults, the built-ins, then what is known of the real plugin and entities. */
function contextOf(
  type: WebhookEventType,
  known: Record<string, unknown>,
): Record<string, unknown> {
  const defined = Object.fromEntries(Object.entries(known).filter(([, v]) => v !== undefined));
  return {
    ...FIXTURES[type].defaults,
    now: new Date().toISOString(),
    random: randomBytes(18).toString('base64url'),
    ...defined,
  };
}

/** The event's `data` built from the fixture and what is known, before overrides. */
export function sampleData(
  type: WebhookEventType,
  known: Record<string, unknown>,
): Record<string, unknown> {
  return fill(FIXTURES[type].data, contextOf(type, known)) as Record<string, unknown>;
}

/** One value of the fixture's context (e.g. the sample text or file name) filled in. */
export function sampleValue(type: WebhookEventType, name: string): unknown {
  return fill(`{{${name}}}`, contextOf(type, {}));
}
