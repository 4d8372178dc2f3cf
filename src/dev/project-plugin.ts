import { resolve } from 'node:path';
import type { Settings } from '../config/profiles.js';
import { normalizeBaseUrl } from '../config/url.js';
import { readProjectState, targetKey } from '../manifest/state.js';
import { identifyTarget } from '../manifest/target.js';
import { UserError, EXIT } from '../errors.js';

/** The plugin a command acts on: `--plugin`, else the one this project deployed to the same target (by store id, else base URL). */
export async function pluginOfProject(
  flag: string | undefined,
  manifest: string,
  settings: Pick<Settings, 'profileName' | 'baseUrl'> & { local?: boolean },
): Promise<string> {
  if (flag) return flag;
  const state = await readProjectState(resolve(manifest));
  if (settings.baseUrl) {
    const identity = await identifyTarget(settings.baseUrl, { local: settings.local });
    const exact = state.targets[targetKey(identity)];
    if (exact) return exact.pluginId;
    const url = normalizeBaseUrl(settings.baseUrl);
    const sameUrl = Object.values(state.targets)
      .filter(
        (t) =>
          t &&
          normalizeBaseUrl(t.baseUrl ?? '') === url &&
          (!identity.storeId || !t.storeId || t.storeId === identity.storeId),
      )
      .sort((a, b) => String(b.deployedAt).localeCompare(String(a.deployedAt)));
    if (sameUrl[0]) return sameUrl[0].pluginId;
  }
  throw new UserError(
    'which plugin? pass --plugin PLUGIN_ID, or run this in a project deployed here (`plugsmith deploy` or `plugsmith dev`)',
    EXIT.USAGE,
  );
}
