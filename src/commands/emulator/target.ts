import type { CommandInput, TargetFlags } from '../types.js';
import { emulatorAdmin } from '../context.js';
import { env } from '../../config/env.js';
import { chooseEmulator, noEmulatorMessage } from '../../config/emulators.js';
import { resolveSettings } from '../../config/profiles.js';
import type { EmulatorAdmin } from '../../dev/emulator-admin.js';
import { UserError, EXIT } from '../../errors.js';

/**
 * The local emulator an admin command acts on, and its admin API: `--base-url`, else PLUGSMITH_BASE_URL,
 * else the running emulator of this project (or the one --emulator names, or outside a project the most
 * recent; see chooseEmulator), else the profile's base URL. Without any, the error names the folder
 * looked in and the fix.
 */
export async function emulatorTarget(input: CommandInput<TargetFlags>): Promise<{ url: string; admin: EmulatorAdmin }> {
  const url = await emulatorUrl(input);
  return { url, admin: await emulatorAdmin(input, url) };
}

async function emulatorUrl(input: CommandInput<TargetFlags>): Promise<string> {
  const given = input.options.baseUrl || env.baseUrl();
  if (given) return given;
  const choice = await chooseEmulator();
  if (choice.state) return choice.state.url;
  const settings = await resolveSettings({ profile: input.global.profile });
  if (settings.baseUrl) return settings.baseUrl;
  throw new UserError(`${noEmulatorMessage(choice)}; or pass --base-url`, EXIT.NOT_FOUND);
}
