import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunCommand, TargetFlags } from '../types.js';
import { settingsFor, timeoutMsOf, tokenProbe } from '../context.js';
import { configPath } from '../../config/paths.js';
import { env } from '../../config/env.js';
import { loadConfig, type Settings } from '../../config/profiles.js';
import { chooseEmulator, noEmulatorMessage } from '../../config/emulators.js';
import { normalizeBaseUrl } from '../../config/url.js';
import { UserError, EXIT } from '../../errors.js';
import type { PlatformClient } from '../../client/index.js';
import { printResult } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';

/** One line of the doctor's report; `exitCode` says how a failure ends the command. */
interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  exitCode?: number;
}

const ok = (name: string, message: string): Check => ({ name, status: 'ok', message });
const warn = (name: string, message: string): Check => ({ name, status: 'warn', message });
const fail = (name: string, message: string, exitCode: number = EXIT.UNEXPECTED): Check => ({
  name,
  status: 'fail',
  message,
  exitCode,
});

/** Node 20 or newer (the package's engines). */
function checkNode(version = process.versions.node): Check {
  const major = Number(version.split('.')[0]);
  return major >= 20
    ? ok('node', `v${version}`)
    : fail('node', `v${version} is too old: plugsmith needs Node.js 20 or newer`);
}

/** The config file: readable JSON, and readable by its owner only (it holds tokens). */
async function checkConfig(): Promise<Check> {
  const path = configPath();
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch {
    return ok(
      'config',
      `no config file at ${path}: none is needed for the local emulator (\`plugsmith login --base-url URL\` makes one for a remote platform)`,
    );
  }
  try {
    const config = await loadConfig();
    const count = Object.keys(config.profiles).length;
    if (mode & 0o077)
      return fail(
        'config',
        `${path} is readable by others (mode ${(mode & 0o777).toString(8)}): run \`chmod 600 ${path}\``,
        EXIT.AUTH,
      );
    const dirMode = (await stat(dirname(path))).mode;
    if (dirMode & 0o077)
      return warn(
        'config',
        `${path}: ${count} profile(s), but its folder is open to others (mode ${(dirMode & 0o777).toString(8)}): \`chmod 700 ${dirname(path)}\``,
      );
    return ok('config', `${path}: ${count} profile(s), owner-only`);
  } catch (error) {
    return fail('config', (error as Error).message);
  }
}

/** Which profile and URLs are in effect. */
function checkProfile(settings: Settings): Check {
  // Following a local emulator (no profile, or a `login --local` one): what is missing is an emulator, which the emulator
  // check reports (exit 4).
  if (!settings.baseUrl && settings.noEmulator)
    return ok(
      'profile',
      settings.profileName
        ? `profile "${settings.profileName}": the running local emulator, whichever runs`
        : 'none: commands use the running local emulator, no login needed (for a remote platform run `plugsmith login --base-url URL` or set PLUGSMITH_BASE_URL)',
    );
  if (!settings.baseUrl)
    return fail(
      'profile',
      'no management URL: run `plugsmith login --base-url URL` or set PLUGSMITH_BASE_URL (for the local emulator, `plugsmith login --local`)',
      EXIT.AUTH,
    );
  const emulator = settings.emulatorStateFile
    ? `the running emulator at ${settings.baseUrl} (its state file ${settings.emulatorStateFile})`
    : null;
  const from = settings.profileName
    ? `profile "${settings.profileName}"${emulator ? `, following ${emulator}` : ''}`
    : (emulator ?? 'environment variables and flags');
  return ok('profile', `${from}; org ${settings.orgId ?? '(none: pass --org to org commands)'}`);
}

/** The HTTP status a call got (200 when it succeeded), or the error when no answer came. */
async function probe(
  call: () => Promise<unknown>,
): Promise<{ status: number } | { error: Error & { code?: string } }> {
  try {
    await call();
    return { status: 200 };
  } catch (error) {
    const e = error as Error & { name: string; status?: number };
    if (e.name === 'ApiError' && typeof e.status === 'number') return { status: e.status };
    return { error: e };
  }
}

/** The management API (any HTTP answer: reachable) and the token (tokenProbe). */
async function checkManagement(client: PlatformClient, settings: Settings): Promise<Check[]> {
  const url = settings.baseUrl!;
  const reach = await probe(() => client.plugins.marketplace({ limit: 1 }));
  if ('error' in reach) {
    const invalid = (reach.error as { type?: string }).type === 'INVALID_RESPONSE';
    if (!invalid)
      return [fail('management API', `cannot reach ${url}: ${reach.error.message}`, EXIT.NETWORK)];
    return [
      fail(
        'management API',
        `${url} answered, but not like the platform: ${reach.error.message}`,
        EXIT.NETWORK,
      ),
    ];
  }
  const checks = [ok('management API', `${url} answers`)];
  if (!settings.token) {
    checks.push(fail('token', 'no token: run `plugsmith login` or set PLUGSMITH_TOKEN', EXIT.AUTH));
    return checks;
  }
  const token = await tokenProbe(client);
  if (token === true) checks.push(ok('token', `accepted by ${url}`));
  else if (token === false)
    checks.push(
      fail(
        'token',
        `refused by ${url} (unknown or revoked): run \`plugsmith login\` again`,
        EXIT.AUTH,
      ),
    );
  else if (token.name === 'ApiError')
    checks.push(fail('token', `could not be checked: HTTP ${token.status}`, EXIT.UNEXPECTED));
  else checks.push(fail('token', `could not be checked: ${token.message}`, EXIT.NETWORK));
  return checks;
}

/** The messaging API and the API key: 404 for an unknown conversation means the key is good. */
async function checkMessaging(client: PlatformClient, settings: Settings): Promise<Check[]> {
  // Nothing is targeted (no profile, no emulator): a running emulator brings its messaging URL, so there is nothing to add.
  if (!settings.messagingUrl && !settings.baseUrl) return [];
  if (!settings.messagingUrl)
    return [
      warn(
        'messaging API',
        'no messaging URL: conversations and messages need `plugsmith login --messaging-url URL` or PLUGSMITH_MESSAGING_URL',
      ),
    ];
  const url = settings.messagingUrl;
  const answer = await probe(() => client.messaging.conversations.get('plugsmith-doctor-probe'));
  if ('error' in answer)
    return [fail('messaging API', `cannot reach ${url}: ${answer.error.message}`, EXIT.NETWORK)];
  const checks = [ok('messaging API', `${url} answers`)];
  if (!settings.apiKey)
    checks.push(
      warn(
        'API key',
        'no messaging API key: run `plugsmith login --api-key -` or set PLUGSMITH_API_KEY',
      ),
    );
  else if (answer.status === 401)
    checks.push(
      fail('API key', `refused by ${url}: run \`plugsmith login --api-key -\` again`, EXIT.AUTH),
    );
  else checks.push(ok('API key', `accepted by ${url}`));
  return checks;
}

/** The local emulator: its state file, whether it answers, and whether the profile points at it. */
async function checkEmulator(client: PlatformClient, settings: Settings): Promise<Check> {
  const choice = await chooseEmulator();
  const state = choice.state;
  if (!state) {
    if (settings.local)
      return fail(
        'emulator',
        `the profile is local but ${noEmulatorMessage(choice)}`,
        EXIT.NOT_FOUND,
      );
    // Without a profile, commands have nothing to talk to until one runs.
    if (!settings.baseUrl) return fail('emulator', noEmulatorMessage(choice), EXIT.NOT_FOUND);
    return ok('emulator', 'not running (start one with `plugsmith emulator start`)');
  }
  const health = await probe(() => client.withOptions({ baseUrl: state.url }).emulator.health());
  if (!('status' in health) || health.status !== 200) {
    return fail(
      'emulator',
      `the state file says an emulator runs at ${state.url} (pid ${state.pid}), but it does not answer`,
      EXIT.NETWORK,
    );
  }
  const used =
    normalizeBaseUrl(settings.baseUrl ?? '') === normalizeBaseUrl(state.url)
      ? 'the profile uses it'
      : 'the profile points elsewhere (`plugsmith login --local` to use it)';
  return ok('emulator', `running at ${state.url} (pid ${state.pid}); ${used}`);
}

/** The checks that talk to the APIs and the emulator, run at once with short timeouts and no retries. */
async function remoteChecks(settings: Settings, timeoutMs = 5_000): Promise<Check[]> {
  const { createClient } = await import('../../client/index.js');
  let client: PlatformClient;
  try {
    // Without a management URL the client serves the emulator probe only (through withOptions).
    client = createClient({
      baseUrl: settings.baseUrl ?? 'http://127.0.0.1',
      messagingUrl: settings.messagingUrl,
      token: settings.token,
      apiKey: settings.apiKey,
      retries: 0,
      timeoutMs,
      userAgent: 'plugsmith-cli',
    });
  } catch (error) {
    return [
      { name: 'profile', status: 'fail', message: (error as Error).message, exitCode: EXIT.USAGE },
    ];
  }
  try {
    const [management, messaging, emulator] = await Promise.all([
      settings.baseUrl ? checkManagement(client, settings) : Promise.resolve([]),
      checkMessaging(client, settings),
      checkEmulator(client, settings),
    ]);
    return [...management, ...messaging, emulator];
  } finally {
    await client.close();
  }
}

/** Runs every check, prints them all, then fails with the first failure's exit code. */
const doctor: RunCommand<TargetFlags> = async (input) => {
  const checks: Check[] = [checkNode(), await checkConfig()];
  let settings: Settings | undefined;
  try {
    settings = await settingsFor(input);
  } catch (error) {
    checks.push({
      name: 'profile',
      status: 'fail',
      message: (error as Error).message,
      exitCode: (error as UserError).exitCode ?? 1,
    });
  }
  if (settings)
    checks.push(
      checkProfile(settings),
      ...(await remoteChecks(
        settings,
        input.global.timeout !== undefined || env.timeout() !== undefined
          ? timeoutMsOf(input)
          : undefined,
      )),
    );

  const failed = checks.filter((c) => c.status === 'fail');
  const style = styleFor(input.io, input.global);
  const mark = { ok: style.green('✔'), warn: style.yellow('!'), fail: style.red('✖') };
  const width = Math.max(...checks.map((c) => c.name.length));
  printResult(
    input.io,
    input.global,
    { ok: failed.length === 0, checks: checks.map(({ exitCode: _code, ...c }) => c) },
    () =>
      checks.map((c) => `${mark[c.status]} ${c.name.padEnd(width)}  ${c.message}`).join('\n') +
      '\n',
  );
  if (failed.length > 0) {
    throw new UserError(
      `${failed.length} problem${failed.length > 1 ? 's' : ''} found: ${failed.map((c) => c.name).join(', ')}`,
      failed[0].exitCode ?? 1,
    );
  }
};

export default doctor;
