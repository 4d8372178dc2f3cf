import type { CommandHandler } from '../types.js';
import { settingsFor } from '../context.js';
import { UserError } from '../../errors.js';
import { printResult } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { checkConfig, checkEmulator, checkManagement, checkMessaging, checkNode, checkProfile, type Check } from './checks.js';

/** Runs every check, prints them all, then fails with the first failure's exit code. */
const doctor: CommandHandler = async (input) => {
  const checks: Check[] = [checkNode(), await checkConfig()];
  let settings;
  try {
    settings = await settingsFor(input);
  } catch (error) {
    checks.push({ name: 'profile', status: 'fail', message: (error as Error).message, exitCode: (error as UserError).exitCode ?? 1 });
  }
  if (settings) {
    checks.push(checkProfile(settings));
    const { createClient } = await import('../../client/index.js');
    // Without a management URL the client is made for the emulator probe only (withOptions).
    const base = settings.baseUrl ?? 'http://127.0.0.1';
    let client;
    try {
      client = createClient({ baseUrl: base, messagingUrl: settings.messagingUrl, token: settings.token, apiKey: settings.apiKey, retries: 0, timeoutMs: 5_000, userAgent: 'plugsmith-cli' });
    } catch (error) {
      checks.push({ name: 'profile', status: 'fail', message: (error as Error).message, exitCode: 2 });
    }
    if (client) try {
      const [management, messaging, emulator] = await Promise.all([
        settings.baseUrl ? checkManagement(client, settings) : Promise.resolve([]),
        checkMessaging(client, settings),
        checkEmulator(client, settings),
      ]);
      checks.push(...management, ...messaging, emulator);
    } finally {
      await client.close();
    }
  }

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
