import { env } from '../config/env.js';
import { readEmulatorState } from '../config/profiles.js';
import { resolveSettings } from '../config/profiles.js';
import { UserError, EXIT } from '../errors.js';

/**
 * The URL of the local emulator an admin command acts on: `--base-url`, else PLUGSMITH_BASE_URL, else the one the state file
 * names (a running `plugsmith emulator start` or `plugsmith dev`), else the profile's base URL.
 */
export async function emulatorUrl(flags: { url?: string; profile?: string }): Promise<string> {
  if (flags.url) return flags.url;
  const fromEnv = env.baseUrl();
  if (fromEnv) return fromEnv;
  const state = await readEmulatorState();
  if (state) return state.url;
  const settings = await resolveSettings({ profile: flags.profile });
  if (settings.baseUrl) return settings.baseUrl;
  throw new UserError('no running emulator found: start one with `plugsmith emulator start` (or `plugsmith dev`), or pass --base-url', EXIT.NOT_FOUND);
}
