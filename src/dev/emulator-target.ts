import { env } from '../config/env.js';
import { chooseEmulator, noEmulatorMessage } from '../config/emulators.js';
import { resolveSettings } from '../config/profiles.js';
import { UserError, EXIT } from '../errors.js';

/**
 * The URL of the local emulator an admin command acts on: `--base-url`, else PLUGSMITH_BASE_URL, else the
 * running emulator of this project (or the one --emulator names, or outside a project the most recent; see
 * chooseEmulator), else the profile's base URL. Without any, the error names the folder looked in and the fix.
 */
export async function emulatorUrl(flags: { url?: string; profile?: string }): Promise<string> {
  if (flags.url) return flags.url;
  const fromEnv = env.baseUrl();
  if (fromEnv) return fromEnv;
  const choice = await chooseEmulator();
  if (choice.state) return choice.state.url;
  const settings = await resolveSettings({ profile: flags.profile });
  if (settings.baseUrl) return settings.baseUrl;
  throw new UserError(`${noEmulatorMessage(choice)}; or pass --base-url`, EXIT.NOT_FOUND);
}
