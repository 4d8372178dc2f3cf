import { InvalidOptionValue, integerOption, type OptionSpec, type OptionsOf } from './types.js';
import { EVENT_KINDS, SCOPES, SORT_ORDERS, type SortOrder } from '#contract/enum-values';
import { didYouMean } from '../ui/did-you-mean.js';

// Option declarations shared by many commands: the registry imports this at start-up, so no client, config or UI imports.

/** `--filter key=value`, repeatable: values of one key gather into an array. */
function parseFilter(value: string, previous: unknown): Record<string, string[]> {
  const at = value.indexOf('=');
  if (at <= 0)
    throw new InvalidOptionValue(
      `--filter takes key=value (e.g. --filter isPublic=true), not "${value}"`,
    );
  const key = value.slice(0, at);
  if (key.startsWith('@'))
    throw new InvalidOptionValue(
      `--filter keys cannot start with "@" (use --page, --limit, --sort… instead): "${value}"`,
    );
  const filters = { ...((previous as Record<string, string[]> | undefined) ?? {}) };
  filters[key] = [...(filters[key] ?? []), value.slice(at + 1)];
  return filters;
}

/** `--order asc,desc`: one order per --sort field. */
function parseOrder(value: string): SortOrder[] {
  return value.split(',').map((o) => {
    const order = o.trim().toLowerCase();
    if (!(SORT_ORDERS as readonly string[]).includes(order))
      throw new InvalidOptionValue(
        `--order takes ${SORT_ORDERS.join(' or ')} (comma-separated for several fields), not "${value}"`,
      );
    return order as SortOrder;
  });
}

/** A comma-separated list; repeating the flag appends (`--events A --events B` = `--events A,B`). */
export function commaList(value: string, previous: unknown): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [...((previous as string[] | undefined) ?? []), ...items];
}

/**
 * A comma-separated list of a fixed set of values (`--events`, `--scopes`), checked before anything is sent: any case is
 * taken, and an unknown value is a usage error naming the values and the closest one, as `trigger` names an event kind.
 */
function valueList(what: string, values: readonly string[]) {
  return (value: string, previous: unknown): string[] => {
    const items = commaList(value, undefined).map((item) => {
      const upper = item.toUpperCase();
      if (values.includes(upper)) return upper;
      throw new InvalidOptionValue(
        `unknown ${what} "${item}": use ${values.join(', ')}${didYouMean(upper, values)}`,
      );
    });
    return [...((previous as string[] | undefined) ?? []), ...items];
  };
}

/** `--events A,B`: event kinds, any case. */
export const eventKindList = valueList('event kind', EVENT_KINDS);
/** `--scopes A,B`: installation token scopes, any case. */
export const scopeList = valueList('scope', SCOPES);

/** `--type KIND`: one event kind, any case, checked as `--events` is. */
export function eventKindOption(flag: string) {
  return (value: string): string => {
    const [kind, ...more] = eventKindList(value, undefined);
    if (kind === undefined || more.length > 0)
      throw new InvalidOptionValue(`${flag} takes one event kind, not "${value}"`);
    return kind;
  };
}

/** The shared query system of every list command, plus `--all`. */
export const listOptions = [
  {
    flags: '--page <n>',
    description: 'page number (index pagination, from 1)',
    parse: integerOption('--page', 1),
  },
  {
    flags: '--limit <n>',
    description: 'records per page (1-100; with --all, the page size used)',
    parse: integerOption('--limit', 1, 100),
  },
  {
    flags: '--cursor <id>',
    description: 'cursor pagination: records after this id ("" starts from the first)',
  },
  {
    flags: '--sort <fields>',
    description: 'sort by these fields, comma-separated (default createdAt)',
  },
  {
    flags: '--order <orders>',
    description: 'asc or desc, comma-separated per --sort field (default desc)',
    parse: parseOrder,
  },
  { flags: '--search <text>', description: 'text search in the endpoint’s text fields' },
  {
    flags: '--filter <key=value>',
    description: 'property filter, repeatable (comma-separated values match any)',
    parse: parseFilter,
  },
  { flags: '--all', description: 'follow the pages and print every record' },
] as const satisfies readonly OptionSpec[];

/** What the list options parse to. */
export type ListFlags = OptionsOf<typeof listOptions>;

/** The client's ListQuery for the parsed list options (structurally `ListQuery`). */
export function listQueryOf(flags: ListFlags) {
  const filters = Object.fromEntries(
    Object.entries(flags.filter ?? {}).map(([key, values]) => [
      key,
      values.length === 1 ? values[0] : values,
    ]),
  );
  return {
    page: flags.page,
    limit: flags.limit ?? (flags.all ? 100 : undefined),
    cursor: flags.cursor,
    sortBy: flags.sort,
    sortOrder: flags.order,
    search: flags.search,
    filters: Object.keys(filters).length ? filters : undefined,
  };
}

/** `--base-url` and `--messaging-url`: override the environment and the profile for one command. */
export const targetOptions = [
  {
    flags: '--base-url <url>',
    description: 'management API base URL (overrides PLUGSMITH_BASE_URL and the profile)',
  },
  {
    flags: '--messaging-url <url>',
    description: 'messaging API base URL (overrides PLUGSMITH_MESSAGING_URL and the profile)',
  },
] as const satisfies readonly OptionSpec[];

/** `--org`, defaulting to the profile's org. */
export const orgOption = {
  flags: '--org <orgId>',
  description:
    'org to act in (default: PLUGSMITH_ORG_ID, else the profile’s org, else the local emulator’s)',
} as const satisfies OptionSpec;

/** `--yes`: confirms a deletion without a prompt (required without a terminal). */
export const yesOption = {
  flags: '-y, --yes',
  description: 'do not ask for confirmation (required without a terminal)',
} as const satisfies OptionSpec;
