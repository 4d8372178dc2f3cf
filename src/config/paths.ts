import { homedir } from 'node:os';
import { join } from 'node:path';
import { env } from './env.js';

/** The folder of plugsmith's config file and emulator state file. */
export function configDir(): string {
  return env.configDir() ?? join(env.xdgConfigHome() ?? join(homedir(), '.config'), 'plugsmith');
}

/** Where a running `plugsmith emulator start` writes its URLs and credentials. */
export function emulatorStatePath(): string {
  return join(configDir(), 'emulator.json');
}

/** The config file with profiles. */
export function configPath(): string {
  return join(configDir(), 'config.json');
}

/** plugsmith's cache folder (`$XDG_CACHE_HOME/plugsmith`, else `~/.cache/plugsmith`): nothing in it is needed. */
export function cacheDir(): string {
  return join(env.xdgCacheHome() ?? join(homedir(), '.cache'), 'plugsmith');
}
