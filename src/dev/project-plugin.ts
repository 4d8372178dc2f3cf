import { resolve } from 'node:path';
import type { Settings } from '../config/profiles.js';
import { readProjectState } from '../manifest/state.js';
import { UserError, EXIT } from '../errors.js';

/**
 * The plugin a command acts on: `--plugin`, else the one this project deployed to the same
 * platform (`.plugsmith/state.json` beside the manifest, by profile, else by base URL; `plugsmith
 * dev` records its emulator's URL).
 */
export async function pluginOfProject(flag: string | undefined, manifest: string, settings: Pick<Settings, 'profileName' | 'baseUrl'>): Promise<string> {
  if (flag) return flag;
  const state = await readProjectState(resolve(manifest));
  const byProfile = settings.profileName ? state.targets[settings.profileName] : undefined;
  const target = byProfile?.baseUrl === settings.baseUrl ? byProfile : Object.values(state.targets).find((t) => t.baseUrl === settings.baseUrl);
  if (target) return target.pluginId;
  throw new UserError('which plugin? pass --plugin PLUGIN_ID, or run this in a project deployed here (`plugsmith deploy` or `plugsmith dev`)', EXIT.USAGE);
}
