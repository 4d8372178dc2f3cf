import { resolve } from 'node:path';
import type { Settings } from '../config/profiles.js';
import { normalizeBaseUrl } from '../config/url.js';
import { readProjectState, targetKey, type TargetState } from '../manifest/state.js';
import { identifyTarget } from '../manifest/target.js';
import { UserError, EXIT } from '../errors.js';
import { deployedFromHere } from '../manifest/deploys-here.js';

/** The state file names a plugin on the platform that no deploy from this folder on this machine recorded: a refusal callers pass on. */
export class UnconfirmedStateError extends UserError {
  constructor(pluginId: string, baseUrl: string) {
    super(
      `.plugsmith/state.json names plugin ${pluginId} on ${baseUrl}, which no deploy from this folder on this machine recorded (the file may have come with a cloned project): pass --plugin ${pluginId} if it is yours, or run \`plugsmith deploy\` here (it asks first)`,
      EXIT.USAGE,
    );
  }
}

/**
 * The plugin a command acts on: `--plugin`, else the one this project deployed to the same target (by store id, else base
 * URL). On the remote platform, only a plugin this machine deployed from this folder: the state file may have come with a
 * cloned project, naming another plugin of yours.
 */
export async function pluginOfProject(
  flag: string | undefined,
  manifest: string,
  settings: Pick<Settings, 'profileName' | 'baseUrl'> & { local?: boolean },
): Promise<string> {
  if (flag) return flag;
  const manifestPath = resolve(manifest);
  const state = await readProjectState(manifestPath);
  if (settings.baseUrl) {
    const identity = await identifyTarget(settings.baseUrl, { local: settings.local });
    const key = targetKey(identity);
    const confirmed = async (entry: TargetState): Promise<string> => {
      if (identity.storeId || (await deployedFromHere(manifestPath, key, entry)))
        return entry.pluginId;
      throw new UnconfirmedStateError(entry.pluginId, settings.baseUrl!);
    };
    const exact = state.targets[key];
    if (exact) return confirmed(exact);
    const url = normalizeBaseUrl(settings.baseUrl);
    const sameUrl = Object.values(state.targets)
      .filter(
        (t) =>
          t &&
          normalizeBaseUrl(t.baseUrl ?? '') === url &&
          (!identity.storeId || !t.storeId || t.storeId === identity.storeId),
      )
      .sort((a, b) => String(b.deployedAt).localeCompare(String(a.deployedAt)));
    if (sameUrl[0]) return confirmed(sameUrl[0]);
  }
  throw new UserError(
    'which plugin? pass --plugin PLUGIN_ID, or run this in a project deployed here (`plugsmith deploy` or `plugsmith dev`)',
    EXIT.USAGE,
  );
}
