import { homedir } from 'node:os';
import { join } from 'node:path';
import { env } from './env.js';

/** The folder of plugsmith's config file and of the running emulators' state files. */
export function configDir(): string {
  return env.configDir() ?? join(env.xdgConfigHome() ?? join(homedir(), '.config'), 'plugsmith');
}

/** Where each running emulator (`plugsmith emulator start`, `plugsmith dev`) writes its URLs and credentials: one file per project. */
export function emulatorsDir(): string {
  return join(configDir(), 'emulators');
}

/** The config file with profiles. */
export function configPath(): string {
  return join(configDir(), 'config.json');
}

/** plugsmith's cache folder (`$XDG_CACHE_HOME/plugsmith`, else `~/.cache/plugsmith`): nothing in it is needed. */
export function cacheDir(): string {
  return join(env.xdgCacheHome() ?? join(homedir(), '.cache'), 'plugsmith');
}
