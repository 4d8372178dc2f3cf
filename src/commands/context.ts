import { readFile } from 'node:fs/promises';
import type { ListFn, Pagination, PlatformClient, TraceEvent } from '../client/index.js';
import { resolveSettings, type Settings } from '../config/profiles.js';
import { adminTokenFor } from '../config/admin-token.js';
import { env } from '../config/env.js';
import { UserError, EXIT } from '../errors.js';
import { jsonSyntaxProblem } from '../manifest/json-syntax.js';
import { confirm } from '../ui/dialogs.js';
import { details, note, printResult, table, type Column } from '../ui/output.js';
import { styleFor } from '../ui/style.js';
import { listQueryOf, type ListFlags } from './list-options.js';
import type { CommandInput, TargetFlags } from './types.js';

/** The commands' output streams already told which emulator was picked (a command may resolve its settings twice). */
const toldPicked = new WeakSet<object>();

/** The merged settings for a command (flags > environment > profile). */
export async function settingsFor(input: CommandInput<TargetFlags>): Promise<Settings> {
  const o = input.options;
  const settings = await resolveSettings({
    profile: input.global.profile,
    baseUrl: o.baseUrl,
    messagingUrl: o.messagingUrl,
    org: o.org,
  });
  // Several emulators run and none was named: say which one the command acts on (a delete must not surprise).
  if (settings.emulatorPicked && !toldPicked.has(input.io)) {
    toldPicked.add(input.io);
    note(input.io, input.global, settings.emulatorPicked);
  }
  return settings;
}

/**
 * A base URL given with the management API's /api (as the emulator's banner once printed it) is not the one a running
 * emulator is found by, so its token is not found either: say which URL to give.
 */
function apiPathHint(baseUrl: string | undefined): string {
  if (!baseUrl || !URL.canParse(baseUrl)) return '';
  const url = new URL(baseUrl);
  if (!/^\/api\/?$/.test(url.pathname)) return '';
  return ` (the base URL is without /api: ${url.origin})`;
}

/** A client for the command's target; a credential in `needs` that is missing is an error naming how to provide it. */
export async function clientFor(
  input: CommandInput,
  needs: { token?: boolean; apiKey?: boolean; messaging?: boolean } = { token: true },
): Promise<{ client: PlatformClient; settings: Settings }> {
  const settings = await settingsFor(input);
  // Messaging commands never call the management API, so its URL may be missing for them.
  if (settings.noEmulator && !settings.baseUrl && !(needs.messaging && settings.messagingUrl))
    throw new UserError(settings.noEmulator, EXIT.NOT_FOUND);
  if (!settings.baseUrl && !needs.messaging) {
    throw new UserError(
      'no platform to talk to: start the local emulator (`plugsmith emulator start`; no login is needed for it), or for a remote platform run `plugsmith login --base-url URL` or set PLUGSMITH_BASE_URL',
      EXIT.AUTH,
    );
  }
  if (needs.token && !settings.token) {
    throw new UserError(
      `no token: run \`plugsmith login\` or set PLUGSMITH_TOKEN${apiPathHint(settings.baseUrl)}`,
      EXIT.AUTH,
    );
  }
  if (needs.apiKey && !settings.apiKey) {
    throw new UserError(
      'no messaging API key: run `plugsmith login --api-key -` or set PLUGSMITH_API_KEY',
      EXIT.AUTH,
    );
  }
  if (needs.messaging && !settings.messagingUrl) {
    throw new UserError(
      'no messaging URL: run `plugsmith login --messaging-url URL` or set PLUGSMITH_MESSAGING_URL',
      EXIT.AUTH,
    );
  }
  const { createClient } = await import('../client/index.js');
  const adminToken = await adminTokenFor(settings.baseUrl);
  try {
    const client = createClient({
      baseUrl: (settings.baseUrl ?? settings.messagingUrl)!,
      messagingUrl: settings.messagingUrl,
      token: settings.token,
      apiKey: settings.apiKey,
      adminToken,
      userAgent: 'plugsmith-cli',
      onTrace: input.global.verbose
        ? (e: TraceEvent) => input.io.stderr.write(formatTrace(e) + '\n')
        : undefined,
      timeoutMs: timeoutMsOf(input),
      // A server that accepts and never answers is not asked again: the user waited --timeout once.
      retryOnTimeout: false,
      onSlowRequest: input.global.quiet
        ? undefined
        : (slow) =>
            input.io.stderr.write(
              `waiting for ${slow.method} ${slow.url} (gives up after ${slow.timeoutMs / 1000}s; --timeout or PLUGSMITH_TIMEOUT changes that)\n`,
            ),
    });
    return { client, settings };
  } catch (error) {
    // A malformed URL from a flag, the environment or the profile.
    if (error instanceof TypeError)
      throw new UserError(
        `${error.message.replace(/^baseUrl/, 'the management URL').replace(/^messagingUrl/, 'the messaging URL')} (check --base-url/--messaging-url, PLUGSMITH_BASE_URL/PLUGSMITH_MESSAGING_URL or the profile)`,
        EXIT.USAGE,
      );
    throw error;
  }
}

/** The request timeout: --timeout, else PLUGSMITH_TIMEOUT, else 30 s; a bad PLUGSMITH_TIMEOUT is a usage error. */
export function timeoutMsOf(input: CommandInput<unknown>): number {
  if (input.global.timeout !== undefined) return input.global.timeout * 1000;
  const raw = env.timeout();
  if (raw === undefined) return 30_000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    throw new UserError(
      `PLUGSMITH_TIMEOUT takes seconds, more than 0 and at most 86400, not "${raw}"`,
      EXIT.USAGE,
    );
  return n * 1000;
}

/** One line per HTTP attempt; the client already redacted secrets from the URL and headers. */
function formatTrace(e: TraceEvent): string {
  const outcome = e.status !== undefined ? String(e.status) : e.error ? `${e.error.code}` : '';
  const attempt = e.attempt > 1 ? ` (attempt ${e.attempt})` : '';
  const retry = e.retryInMs !== undefined ? `, retrying in ${e.retryInMs}ms` : '';
  const auth = e.requestHeaders.authorization
    ? ` [authorization: ${e.requestHeaders.authorization}]`
    : '';
  return `> ${e.method} ${e.url} ${outcome} ${Math.round(e.durationMs)}ms${attempt}${retry}${auth}`;
}

/** Whether the target takes the client's token (a GET of a plugin that cannot exist answers 404 to a valid one, 401 to another), else the error. */
export function tokenProbe(
  client: PlatformClient,
): Promise<boolean | (Error & { status?: number })> {
  return client.plugins.get('plugsmith-token-probe').then(
    () => true,
    (error: Error & { status?: number }) =>
      error.name === 'ApiError' && (error.status === 404 || error.status === 401)
        ? error.status === 404
        : error,
  );
}

/** Runs `work` with a client, then closes its connections so the process exits without waiting for idle sockets. */
export async function withClient<T>(
  input: CommandInput,
  needs: Parameters<typeof clientFor>[1],
  work: (client: PlatformClient, settings: Settings) => Promise<T>,
): Promise<T> {
  const { client, settings } = await clientFor(input, needs);
  try {
    return await work(client, settings);
  } finally {
    await client.close();
  }
}

/** A JSON file's value; errors name it as `named` (a flag and the path, or the path): no such file (exit 4), unreadable, not JSON (5). */
export async function readJson(path: string, named = path): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch(({ code, message }: NodeJS.ErrnoException) => {
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder'
          : code === 'EACCES'
            ? 'permission denied'
            : message;
    throw new UserError(
      `cannot read ${named}: ${why}`,
      code === 'ENOENT' ? EXIT.NOT_FOUND : EXIT.USAGE,
    );
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(
      `${named} is not valid JSON: ${jsonSyntaxText(text, error)}`,
      EXIT.VALIDATION,
    );
  }
}

/** Where a JSON text's syntax breaks, by line and column (as a manifest's and a scenario's are told); never the text. */
export function jsonSyntaxText(text: string, error: unknown): string {
  const where = jsonSyntaxProblem(text);
  return where
    ? `line ${where.line}, column ${where.column}: ${where.message}`
    : (error as Error).message;
}

/** Reads a JSON Schema file given to a flag (e.g. `--args-schema ./args.json`); errors name the flag and the file. */
export async function readJsonFile(flag: string, path: string): Promise<Record<string, unknown>> {
  const parsed = await readJson(path, `${flag} ${path}`);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UserError(
      `${flag} ${path} must hold a JSON object (a JSON Schema), not ${Array.isArray(parsed) ? 'an array' : typeof parsed}`,
      EXIT.VALIDATION,
    );
  }
  return parsed as Record<string, unknown>;
}

/** Runs a request whose body holds schemas read from files (`field` → [flag, path]): a refusal names the file. */
export async function naming<T>(
  files: Record<string, [flag: string, path: string]>,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const e = error as { name?: string; details?: Array<{ path?: string[] }>; message: string };
    if (e?.name === 'ApiError' && Array.isArray(e.details)) {
      const named = [
        ...new Set(
          e.details
            .map((d) => d.path?.[0])
            .filter((f): f is string => f !== undefined && f in files),
        ),
      ];
      if (named.length > 0)
        e.message += ` (in ${named.map((f) => `${files[f][1]} from ${files[f][0]}`).join(', ')})`;
    }
    throw error;
  }
}

/** Asks before deleting unless `--yes`; without a terminal the missing `--yes`, and declining, are usage errors. */
export async function confirmDeletion(
  input: CommandInput<{ yes?: boolean }>,
  what: string,
): Promise<void> {
  if (input.options.yes) return;
  const yes = await confirm(input.io, {
    flag: '--yes',
    message: `Delete ${what}?`,
    default: false,
  });
  if (!yes) throw new UserError(`not deleted: ${what}`, EXIT.USAGE);
}

/**
 * Prints one record: JSON with --json, its key with --quiet (its `id`, or the field the commands that act on it take:
 * `name` for actions and external events), else `key  value` lines.
 */
export function printRecord(
  input: CommandInput<unknown>,
  record: unknown,
  keys?: string[],
  quietKey = 'id',
): void {
  const id = keyOf(record, quietKey);
  if (input.global.quiet && !input.global.json && id !== undefined) {
    input.io.stdout.write(`${id}\n`);
    return;
  }
  printResult(input.io, input.global, record, () =>
    details((record ?? {}) as Record<string, unknown>, keys),
  );
}

/** A record's key (`id`, or `name`) when it is a string: what `--quiet` prints of it, for `$(…)`. */
function keyOf(record: unknown, key = 'id'): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const value = (record as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/** A list command's output: every page with `--all`, else one page and a note on how to get the next. */
export async function printList<T>(
  input: CommandInput<ListFlags>,
  list: ListFn<T>,
  columns: Column<T>[],
  what: string,
  quietKey = 'id',
): Promise<void> {
  const query = listQueryOf(input.options);
  if (input.options.all) {
    const { collect } = await import('../client/index.js');
    return printRows(input, await collect(list, query), columns, what, quietKey);
  }
  const page = await list(query);
  printRows(input, page.data, columns, what, quietKey);
  const more = page.pagination ? nextPageHint(page.pagination) : '';
  if (more) note(input.io, input.global, styleFor(input.io, input.global, 'stderr').dim(more));
}

/** Prints records: JSON with --json, their keys with --quiet (see printRecord), else a table (or `no <what>`). */
export function printRows<T>(
  input: CommandInput<unknown>,
  rows: T[],
  columns: Column<T>[],
  what: string,
  quietKey = 'id',
): void {
  const ids = rows.map((row) => keyOf(row, quietKey));
  if (input.global.quiet && !input.global.json && ids.every((id) => id !== undefined)) {
    input.io.stdout.write(ids.map((id) => `${id}\n`).join(''));
    return;
  }
  const style = styleFor(input.io, input.global);
  printResult(input.io, input.global, rows, () =>
    rows.length === 0
      ? `no ${what}\n`
      : table(rows, columns, { bold: style.bold, width: input.io.stdout.columns }),
  );
}

function nextPageHint(p: Pagination): string {
  if (p.type === 'cursor')
    return p.hasNext && p.nextCursor ? `more records: --cursor ${p.nextCursor} (or --all)` : '';
  const where = `page ${p.page} of ${Math.max(1, p.totalPages)}, ${p.total} in all`;
  return p.hasNext
    ? `${where}; next: --page ${p.page + 1} (or --all)`
    : p.page > 1 || p.totalPages > 1
      ? where
      : '';
}

/** The org a command acts in: --org, else the profile's, else a usage error. */
export function orgOf(settings: Settings): string {
  if (!settings.orgId)
    throw new UserError(
      'no org: pass --org ORG_ID (or log in with `plugsmith login --org ORG_ID`)',
      EXIT.USAGE,
    );
  return settings.orgId;
}
