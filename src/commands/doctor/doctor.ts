import type { CommandHandler, TargetFlags } from '../types.js';
import { settingsFor, timeoutMsOf } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { env } from '../../config/env.js';
import type { Settings } from '../../config/profiles.js';
import type { PlatformClient } from '../../client/index.js';
import { printResult } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { checkConfig, checkEmulator, checkManagement, checkMessaging, checkNode, checkProfile, type Check } from './checks.js';

/** The checks that talk to the APIs and the emulator, run at once with short timeouts and no retries. */
async function remoteChecks(settings: Settings, timeoutMs = 5_000): Promise<Check[]> {
  const { createClient } = await import('../../client/index.js');
  let client: PlatformClient;
  try {
    // Without a management URL the client serves the emulator probe only (through withOptions).
    client = createClient({ baseUrl: settings.baseUrl ?? 'http://127.0.0.1', messagingUrl: settings.messagingUrl, token: settings.token, apiKey: settings.apiKey, retries: 0, timeoutMs, userAgent: 'plugsmith-cli' });
  } catch (error) {
    return [{ name: 'profile', status: 'fail', message: (error as Error).message, exitCode: EXIT.USAGE }];
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
const doctor: CommandHandler<TargetFlags> = async (input) => {
  const checks: Check[] = [checkNode(), await checkConfig()];
  let settings: Settings | undefined;
  try {
    settings = await settingsFor(input);
  } catch (error) {
    checks.push({ name: 'profile', status: 'fail', message: (error as Error).message, exitCode: (error as UserError).exitCode ?? 1 });
  }
  if (settings) checks.push(checkProfile(settings), ...(await remoteChecks(settings, input.global.timeout !== undefined || env.timeout() !== undefined ? timeoutMsOf(input) : undefined)));

  const failed = checks.filter((c) => c.status === 'fail');
  const style = styleFor(input.io, input.global);
  const mark = { ok: style.green('✔'), warn: style.yellow('!'), fail: style.red('✖') };
  const width = Math.max(...checks.map((c) => c.name.length));
  printResult(input.io, input.global, { ok: failed.length === 0, checks: checks.map(({ exitCode: _code, ...c }) => c) }, () =>
    checks.map((c) => `${mark[c.status]} ${c.name.padEnd(width)}  ${c.message}`).join('\n') + '\n',
  );
  if (failed.length > 0) {
    throw new UserError(`${failed.length} problem${failed.length > 1 ? 's' : ''} found: ${failed.map((c) => c.name).join(', ')}`, failed[0].exitCode ?? 1);
  }
};

export default doctor;
