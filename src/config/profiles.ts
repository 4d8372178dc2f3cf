import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { configPath, emulatorStatePath } from './paths.js';
import { env } from './env.js';
import { writePrivateFile } from './private-file.js';
import { UserError, EXIT } from '../errors.js';

/** Where and as whom the CLI talks to a platform (remote or the local emulator). */
export interface Profile {
  baseUrl: string;
  messagingUrl?: string;
  token?: string;
  apiKey?: string;
  /** The org commands use when none is given with --org. */
  orgId?: string;
  /**
   * True for a profile made by `login --local`: it follows the running emulator (the state
   * file's URLs and credentials) rather than the ones remembered here.
   */
  local?: boolean;
}

export interface ConfigFile {
  current?: string;
  profiles: Record<string, Profile>;
}

/** Reads the config file (an empty config when there is none). */
export async function loadConfig(): Promise<ConfigFile> {
  try {
    const parsed = JSON.parse(await readFile(configPath(), 'utf8')) as ConfigFile;
    return { current: parsed.current, profiles: parsed.profiles ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new UserError(`the config file ${configPath()} is not valid JSON: fix or delete it, then run \`plugsmith login\``, EXIT.VALIDATION);
  }
}

/** Writes the config file atomically, readable by its owner only. */
export async function saveConfig(config: ConfigFile): Promise<void> {
  const path = configPath();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writePrivateFile(path, JSON.stringify(config, null, 2) + '\n');
}

/** What a running `plugsmith emulator start` wrote about itself. */
export interface EmulatorState {
  url: string;
  messagingUrl: string;
  token: string | null;
  apiKey: string | null;
  orgId: string | null;
  dataDir: string | null;
  /** The admin credential of this start (header `x-plugsmith-admin` on `/_emulator`). */
  adminToken: string;
  /** The store's stable id (`st_…`), absent in files written by older versions. */
  storeId?: string;
  pid: number;
  startedAt: string;
}

/**
 * Writes the state file of an emulator this process runs (owner-only: it holds the token), so
 * other commands find it; returns what was written.
 */
export async function writeEmulatorState(emulator: Omit<EmulatorState, 'pid' | 'startedAt'>): Promise<EmulatorState> {
  const state: EmulatorState = {
    url: emulator.url,
    messagingUrl: emulator.messagingUrl,
    token: emulator.token,
    apiKey: emulator.apiKey,
    orgId: emulator.orgId,
    dataDir: emulator.dataDir,
    adminToken: emulator.adminToken,
    storeId: emulator.storeId,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  };
  const path = emulatorStatePath();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Written whole or not at all: another command may read it at any moment.
  await writePrivateFile(path, JSON.stringify(state, null, 2) + '\n');
  return state;
}

/** The local emulator's state file, or null when none is running. */
export async function readEmulatorState(): Promise<EmulatorState | null> {
  try {
    const state = JSON.parse(await readFile(emulatorStatePath(), 'utf8')) as EmulatorState;
    try {
      process.kill(state.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return null;
    }
    return state;
  } catch {
    return null;
  }
}

/** The settings a command runs with, after flags, environment and profile are merged. */
export interface Settings {
  profileName: string | null;
  baseUrl?: string;
  messagingUrl?: string;
  token?: string;
  apiKey?: string;
  orgId?: string;
  local: boolean;
}

/** Flags override environment variables, which override the profile. */
export async function resolveSettings(flags: { profile?: string; baseUrl?: string; messagingUrl?: string; token?: string; apiKey?: string; org?: string }): Promise<Settings> {
  const config = await loadConfig();
  const profileName = flags.profile ?? env.profile() ?? config.current ?? null;
  let profile: Profile | undefined;
  if (profileName !== null) {
    profile = config.profiles[profileName];
    const named = flags.profile ?? env.profile();
    if (!profile && named) {
      const known = Object.keys(config.profiles);
      throw new UserError(`no profile named "${named}"${known.length ? ` (profiles: ${known.join(', ')})` : ''}: run \`plugsmith login --profile ${named}\``, EXIT.NOT_FOUND);
    }
  }
  const settings: Settings = {
    profileName: profile ? profileName : null,
    baseUrl: flags.baseUrl ?? env.baseUrl() ?? profile?.baseUrl,
    messagingUrl: flags.messagingUrl ?? env.messagingUrl() ?? profile?.messagingUrl,
    token: flags.token ?? env.token() ?? profile?.token,
    apiKey: flags.apiKey ?? env.apiKey() ?? profile?.apiKey,
    orgId: flags.org ?? profile?.orgId,
    local: Boolean(profile?.local),
  };
  // A `login --local` profile follows the running emulator (its port and credentials may have
  // changed since the login); so does no configuration at all, as if `login --local` had been run.
  if (profile?.local && settings.baseUrl === profile.baseUrl && flags.baseUrl === undefined && env.baseUrl() === undefined) {
    const state = await readEmulatorState();
    if (state) {
      settings.baseUrl = state.url;
      settings.messagingUrl = flags.messagingUrl ?? env.messagingUrl() ?? state.messagingUrl;
      settings.token = flags.token ?? env.token() ?? state.token ?? profile.token;
      settings.apiKey = flags.apiKey ?? env.apiKey() ?? state.apiKey ?? profile.apiKey;
      settings.orgId = flags.org ?? profile.orgId ?? state.orgId ?? undefined;
    }
  }
  if (!profile && settings.baseUrl === undefined) {
    const state = await readEmulatorState();
    if (state) {
      settings.baseUrl = state.url;
      settings.messagingUrl ??= state.messagingUrl;
      settings.token ??= state.token ?? undefined;
      settings.apiKey ??= state.apiKey ?? undefined;
      settings.orgId ??= state.orgId ?? undefined;
      settings.local = true;
    }
  }
  return settings;
}
