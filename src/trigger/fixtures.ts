import { randomBytes } from 'node:crypto';
import { EVENT_TYPES, type WebhookEventType } from '../shared/webhooks/events.js';
import { fill, SAMPLE_EVENTS } from '../shared/sample-events/index.js';
import { UserError, EXIT } from '../errors.js';
import { didYouMean } from '../ui/did-you-mean.js';

/** The event kind named on the command line (case-insensitive), or a usage error listing the known ones. */
export function eventTypeOf(name: string): WebhookEventType {
  const upper = name.toUpperCase();
  if ((EVENT_TYPES as readonly string[]).includes(upper)) return upper as WebhookEventType;
  throw new UserError(
    `unknown event kind "${name}": use one of ${EVENT_TYPES.join(', ')}${didYouMean(upper, EVENT_TYPES)}`,
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
    ...SAMPLE_EVENTS[type].defaults,
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
  return fill(SAMPLE_EVENTS[type].data, contextOf(type, known)) as Record<string, unknown>;
}

/** One value of the fixture's context (e.g. the sample text or file name) filled in. */
export function sampleValue(type: WebhookEventType, name: string): unknown {
  return fill(`{{${name}}}`, contextOf(type, {}));
}
