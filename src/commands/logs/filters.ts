import { InvalidOptionValue, integerOption, type OptionSpec, type OptionsOf } from '../types.js';
import { eventKindOption } from '../list-options.js';
import { HTTP_STATUS_FILTER_PATTERN } from '#contract/enum-values';

// The delivery log's filters as options: `plugsmith logs` shows what they match and `plugsmith logs
// redeliver` resends it, the way the dashboard's Deliveries filters and its bulk resend do. Pure
// data and parsers: the registry imports this file at start-up.

/** What `--status` takes; `failed` also matches `exhausted` (the delivery did not get through). */
export const DELIVERY_STATUS_CHOICES = ['pending', 'delivered', 'failed', 'exhausted'] as const;

const HTTP_STATUS = new RegExp(HTTP_STATUS_FILTER_PATTERN);

function parseHttpStatus(value: string): string {
  const statuses = value.replace(/\s+/g, '').toLowerCase();
  if (!HTTP_STATUS.test(statuses))
    throw new InvalidOptionValue(
      `--http-status takes statuses (500), classes (5xx) or none (no answer), comma-separated, not "${value}"`,
    );
  return statuses;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNIT_NAMES: Record<string, string> = {
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
};

/** What a time argument takes, for its error messages. */
export const TIME_FORMS = 'a time (2026-01-31T09:00:00Z) or a duration back from now (30m, 2h, 7d)';

/**
 * A time argument as an ISO time: a duration back from now (`90s`, `15m`, `2h`, `7d`, `2 minutes`), or
 * an ISO 8601 date or time (`2026-01-31`, `2026-01-31T09:00:00Z`). Throws a message naming both forms
 * for anything else: Date would read `90` as the year 1990 and `2` as 2001, and record everything.
 */
export function timeArgument(value: string, now: () => number = Date.now): string {
  const text = value.trim();
  const ago = /^(\d+)\s*([a-z]+)$/i.exec(text);
  const unit = ago && (UNIT_NAMES[ago[2].toLowerCase()] ?? ago[2].toLowerCase());
  if (ago && unit && UNITS[unit] !== undefined)
    return new Date(now() - Number(ago[1]) * UNITS[unit]).toISOString();
  const at = /^\d{4}-\d{2}-\d{2}([T ]|$)/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at))
    throw new Error(
      /^\d+$/.test(text)
        ? `${TIME_FORMS}, not "${value}": a number needs a unit (${text}s, ${text}m, ${text}h, ${text}d)`
        : `${TIME_FORMS}, not "${value}"`,
    );
  return new Date(at).toISOString();
}

/** A time option (`--since`, `--until`): {@link timeArgument}, its error naming the flag. */
export function timeOption(flag: string, now: () => number = Date.now) {
  return (value: string): string => {
    try {
      return timeArgument(value, now);
    } catch (error) {
      throw new InvalidOptionValue(`${flag} takes ${(error as Error).message}`);
    }
  };
}

/** The delivery log's filters, shared by `logs` and `logs redeliver`. */
export const deliveryFilterOptions = [
  { flags: '--plugin <pluginId>', description: "only this plugin's deliveries" },
  {
    flags: '--type <eventType>',
    description: 'only this event kind',
    parse: eventKindOption('--type'),
  },
  {
    flags: '--status <status>',
    description: 'only this status (failed also matches exhausted: every retry failed)',
    choices: DELIVERY_STATUS_CHOICES,
  },
  {
    flags: '--http-status <statuses>',
    description:
      "the last attempt's answer: statuses (500), classes (5xx) or none (no answer), comma-separated",
    parse: parseHttpStatus,
  },
  {
    flags: '--failed-once',
    description: 'only deliveries with an attempt that failed, even if a later one got through',
  },
  {
    flags: '--min-attempts <n>',
    description: 'at least this many attempts',
    parse: integerOption('--min-attempts', 0, 9999),
  },
  {
    flags: '--max-attempts <n>',
    description: 'at most this many attempts',
    parse: integerOption('--max-attempts', 0, 9999),
  },
  {
    flags: '--since <time>',
    description:
      'created at or after this time: ISO 8601, or a duration back from now (30m, 2h, 7d)',
    parse: timeOption('--since'),
  },
  {
    flags: '--until <time>',
    description: 'created before this time: ISO 8601, or a duration back from now',
    parse: timeOption('--until'),
  },
  {
    flags: '--scenario <name>',
    description: 'only deliveries emitted while this scenario ran (`plugsmith scenario run`)',
  },
  {
    flags: '--search <text>',
    description:
      'only deliveries whose id, event id, type, URL, plugin or instance id contains this',
  },
] as const satisfies readonly OptionSpec[];

/** The parsed filter options (any may be left out). */
export type DeliveryFilterFlags = Partial<OptionsOf<typeof deliveryFilterOptions>>;

/** Each filter's flag and its key in the parsed options (`--http-status`, `httpStatus`), in the options' order. */
const FILTERS = deliveryFilterOptions.map(({ flags }) => {
  const flag = flags.split(' ')[0];
  return {
    flag,
    key: flag
      .slice(2)
      .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof DeliveryFilterFlags,
  };
});

/** The flags of the filters given (`--min-attempts 0` was given; a flag left out was not). */
export function givenFilters(flags: DeliveryFilterFlags): string[] {
  return FILTERS.filter(({ key }) => flags[key] !== undefined && flags[key] !== false).map(
    ({ flag }) => flag,
  );
}

/** The client's DeliveryMatch for the parsed filters (structurally `DeliveryMatch`). */
export function deliveryMatchOf(flags: DeliveryFilterFlags) {
  const filters: Record<string, string | string[]> = {};
  if (flags.type) filters.type = flags.type;
  if (flags.scenario) filters.scenario = flags.scenario;
  if (flags.status)
    filters.status = flags.status === 'failed' ? ['failed', 'exhausted'] : flags.status;
  return {
    pluginId: flags.plugin,
    search: flags.search,
    filters: Object.keys(filters).length ? filters : undefined,
    failedOnce: flags.failedOnce || undefined,
    httpStatus: flags.httpStatus,
    minAttempts: flags.minAttempts,
    maxAttempts: flags.maxAttempts,
    since: flags.since,
    until: flags.until,
  };
}

/** The filters in words, for a confirmation ("--status failed --plugin plg_1"). */
export function describeFilters(flags: DeliveryFilterFlags): string {
  return FILTERS.filter(
    ({ key }) => flags[key] !== undefined && flags[key] !== false && flags[key] !== '',
  )
    .map(({ flag, key }) =>
      flags[key] === true
        ? flag
        : `${flag} ${key === 'search' ? JSON.stringify(flags.search) : flags[key]}`,
    )
    .join(' ');
}
