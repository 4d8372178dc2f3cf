import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { configPath } from './paths.js';
import {
  chooseEmulator,
  listEmulators,
  noEmulatorMessage,
  type EmulatorState,
} from './emulators.js';
import { normalizeBaseUrl } from './url.js';
import { env } from './env.js';
import { writePrivateFile } from '../shared/private-file.js';
import { UserError, EXIT } from '../errors.js';

/** Where and as whom the CLI talks to a platform (remote or the local emulator). */
export interface Profile {
  baseUrl: string;
  messagingUrl?: string;
  token?: string;
  apiKey?: string;
  /** The org commands use when none is given with --org. */
  orgId?: string;
  /** A `login --local` profile: it follows the running emulator rather than the URLs and credentials here. */
  local?: boolean;
}

interface ConfigFile {
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
    throw new UserError(
      `the config file ${configPath()} is not valid JSON: fix or delete it, then run \`plugsmith login\``,
      EXIT.VALIDATION,
    );
  }
}

/** Writes the config file atomically, readable by its owner only. */
export async function saveConfig(config: ConfigFile): Promise<void> {
  const path = configPath();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writePrivateFile(path, JSON.stringify(config, null, 2) + '\n');
}

/** The settings a command runs with, after flags, environment and profile are merged. */
export interface Settings extends Omit<Partial<Profile>, 'local'> {
  profileName: string | null;
  local: boolean;
  /** Why there is no base URL when the settings would follow a local emulator and none runs. */
  noEmulator?: string;
  /** The state file of the running emulator whose URL and credentials these settings took. */
  emulatorStateFile?: string;
  /** The emulator was picked as the most recently started of several running: which, and how to pick another. */
  emulatorPicked?: string;
}

/** Flags override environment variables, which override the profile. */
export async function resolveSettings(flags: {
  profile?: string;
  baseUrl?: string;
  messagingUrl?: string;
  token?: string;
  apiKey?: string;
  org?: string;
}): Promise<Settings> {
  const config = await loadConfig();
  const named = flags.profile ?? env.profile();
  const profileName = named ?? config.current ?? null;
  const profile: Profile | undefined =
    profileName === null ? undefined : config.profiles[profileName];
  if (!profile && named) {
    const known = Object.keys(config.profiles);
    throw new UserError(
      `no profile named "${named}"${known.length ? ` (profiles: ${known.join(', ')})` : ''}: run \`plugsmith login --profile ${named}\``,
      EXIT.NOT_FOUND,
    );
  }
  const explicitUrl = flags.baseUrl ?? env.baseUrl();
  const settings: Settings = {
    profileName: profile ? profileName : null,
    baseUrl: explicitUrl ?? profile?.baseUrl,
    messagingUrl: flags.messagingUrl ?? env.messagingUrl() ?? profile?.messagingUrl,
    token: flags.token ?? env.token() ?? profile?.token,
    apiKey: flags.apiKey ?? env.apiKey() ?? profile?.apiKey,
    orgId: flags.org ?? env.orgId() ?? profile?.orgId,
    // A `login --local` profile is the emulator's only at its own URL: a URL given by flag or variable is judged on its
    // own (below: a running local emulator's is local again).
    local: Boolean(profile?.local) && explicitUrl === undefined,
  };
  // A `login --local` profile follows the running emulator; so does no configuration at all.
  const follows = profile
    ? profile.local && explicitUrl === undefined
    : settings.baseUrl === undefined;
  if (follows) {
    const choice = await chooseEmulator();
    if (!choice.state)
      return { ...settings, baseUrl: undefined, noEmulator: noEmulatorMessage(choice) };
    const followed = withEmulatorState(settings, flags, choice.state, profile);
    if (!choice.others) return followed;
    return {
      ...followed,
      emulatorPicked: `using the emulator at ${choice.state.url}, the most recently started of ${choice.others + 1} running here (\`plugsmith emulator list\`); --emulator <url|folder> or PLUGSMITH_EMULATOR picks another`,
    };
  }
  // A URL given by flag or variable that is a running local emulator's: its credentials come from its state file,
  // as they do when the CLI follows it (a profile's credentials belong to the profile's own URL).
  if (explicitUrl !== undefined) {
    const state = await emulatorAt(explicitUrl);
    if (state) return withEmulatorState(settings, flags, state, undefined);
  }
  return settings;
}

/**
 * The settings for a running local emulator: flags and environment first, then its state file, then the profile (only
 * when the CLI follows the emulator for that profile). The one rule for every command; docs/platform.md states it.
 */
function withEmulatorState(
  settings: Settings,
  flags: { messagingUrl?: string; token?: string; apiKey?: string; org?: string },
  state: EmulatorState & { path?: string },
  profile: Profile | undefined,
): Settings {
  return {
    ...settings,
    baseUrl: state.url,
    messagingUrl: flags.messagingUrl ?? env.messagingUrl() ?? state.messagingUrl,
    token: flags.token ?? env.token() ?? state.token ?? profile?.token,
    apiKey: flags.apiKey ?? env.apiKey() ?? state.apiKey ?? profile?.apiKey,
    orgId: flags.org ?? env.orgId() ?? profile?.orgId ?? state.orgId ?? undefined,
    local: true,
    emulatorStateFile: state.path,
  };
}

/** The running emulator listening at `url`, from the state files (null when none is). */
async function emulatorAt(url: string): Promise<EmulatorState | null> {
  const target = normalizeBaseUrl(url);
  const running = await listEmulators();
  return running.find((state) => normalizeBaseUrl(state.url) === target) ?? null;
}
