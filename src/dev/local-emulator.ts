import {
  chooseEmulator,
  emulatorOwner,
  listEmulators,
  removeEmulatorState,
  writeEmulatorState,
  type EmulatorState,
} from '../config/emulators.js';
import { UserError, EXIT } from '../errors.js';
import { createClient, type EmulatorAdminResource } from '../client/index.js';
import { env } from '../config/env.js';
import { describeTakenPort, portIsFree } from './ports.js';

/** The emulator a dev session talks to: one that was already running, or one it started in-process. */
export interface LocalEmulator {
  url: string;
  messagingUrl: string;
  token: string;
  apiKey: string | null;
  orgId: string;
  /** The admin credential (`x-plugsmith-admin`) of the emulator, for its `/_emulator` routes. */
  adminToken: string | undefined;
  /** The store's stable id (null: an emulator too old to tell). */
  storeId: string | null;
  /** A single-use login link of its web dashboard (null when it could not mint one). */
  dashboardUrl: string | null;
  /** True when this process started it (and stops it). */
  owned: boolean;
  dataDir: string | null;
  /** What the user should hear of (e.g. a default port was taken). */
  notes: string[];
  close(): Promise<void>;
}

/** How to start one when none runs. Ports left undefined default to 4010 and 4011, or free ones when those are taken. */
export interface LocalEmulatorOptions {
  /** An emulator named on the command line (--base-url): used as it is, never started. */
  target?: Omit<LocalEmulator, 'owned' | 'dataDir' | 'close' | 'notes' | 'dashboardUrl'>;
  dataDir: string;
  /** The project folder (of the manifest) whose emulator is used or started. */
  project?: string;
  port?: number;
  messagingPort?: number;
  /** A fault profile (and seed) for the webhook deliveries: given to an emulator started here, set with PUT /_emulator/faults on a running one. */
  faults?: { faults?: string; faultsSeed?: string };
  /** Where an emulator started here writes its own lines (a failure inside it, a hold that expired); default: nowhere. */
  log?: (line: string) => void;
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_MESSAGING_PORT = 4011;

/** The emulator of the project `from` (default cwd), if it really runs: it answers its health check with its state file's pid. */
export async function liveEmulator(
  from?: string,
): Promise<(EmulatorState & { path: string }) | null> {
  const state = (await chooseEmulator(from)).state;
  if (!state) return null;
  try {
    const health = await withEmulatorAdmin(state.url, state.adminToken, (admin) => admin.health());
    if (typeof health.pid === 'number' && health.pid !== state.pid) return null;
    return {
      ...state,
      storeId: state.storeId ?? (typeof health.storeId === 'string' ? health.storeId : undefined),
    };
  } catch {
    return null;
  }
}

/** The exit code of a store that cannot be opened: held by another emulator is a conflict (6), unreadable is invalid (5). */
export function storeErrorExit(error: Error): number {
  return /in use by another emulator|already open in this process|could not lock/.test(
    error.message,
  )
    ? EXIT.CONFLICT
    : EXIT.VALIDATION;
}

/** Refuses two equal non-zero ports (the second server could never listen). */
export function assertDistinctPorts(
  port: number | undefined,
  messagingPort: number | undefined,
  flags: [string, string],
): void {
  if (port !== undefined && port !== 0 && port === messagingPort) {
    throw new UserError(
      `${flags[0]} and ${flags[1]} must differ (both are ${port}): the management and messaging APIs each need a port of their own`,
      EXIT.USAGE,
    );
  }
}

/** The port to listen on: one asked for must be free (else the error names its holder); a taken default becomes 0 (free), with a note. */
export async function choosePort(
  asked: number | undefined,
  fallback: number,
  host: string,
  flag: string,
  notes: string[],
  instead: string,
): Promise<number> {
  if (asked !== undefined) {
    if (asked === 0 || (await portIsFree(asked, host))) return asked;
    throw new UserError(
      `cannot listen on ${host}:${asked} (${flag}): ${await describePort(asked)}; stop it, or pass another ${flag} (0 picks a free port)`,
      EXIT.CONFLICT,
    );
  }
  if (await portIsFree(fallback, host)) return fallback;
  notes.push(`${await describePort(fallback)}: ${instead} (${flag} picks one)`);
  return 0;
}

/** Runs `start` on the chosen ports; each default one taken since the check (another emulator starting) moves to a free port. */
export async function startOnChosenPorts<T>(
  ports: { port: number; messagingPort: number },
  asked: { port?: number; messagingPort?: number },
  notes: string[],
  instead: string,
  start: (port: number, messagingPort: number) => Promise<T>,
): Promise<T> {
  // Both defaults may have been taken: each failure moves one port to 0, so this ends after two retries at most.
  for (let current = ports; ; ) {
    try {
      return await start(current.port, current.messagingPort);
    } catch (error) {
      const taken =
        (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
          ? (error as { port?: number }).port
          : undefined;
      if (!taken) throw error;
      const movePort = taken === current.port && asked.port === undefined;
      const moveMessaging = taken === current.messagingPort && asked.messagingPort === undefined;
      if (!movePort && !moveMessaging) throw error;
      notes.push(`${await describePort(taken)}: ${instead}`);
      current = {
        port: movePort ? 0 : current.port,
        messagingPort: moveMessaging ? 0 : current.messagingPort,
      };
    }
  }
}

/** Who holds a taken port, naming the project when it is another emulator plugsmith started. */
export async function describePort(port: number): Promise<string> {
  const holder = (await listEmulators()).find((s) =>
    [s.url, s.messagingUrl].some((u) => Number(new URL(u).port) === port),
  );
  if (holder)
    return `port ${port} is in use by the emulator of ${holder.project ?? holder.dataDir ?? 'an in-memory store'} (pid ${holder.pid})`;
  return describeTakenPort(port);
}

/** Reuses the project's emulator when it answers, else starts one here and writes its state file (for `trigger` and `logs` elsewhere). */
export async function useLocalEmulator(options: LocalEmulatorOptions): Promise<LocalEmulator> {
  const notes: string[] = [];
  let reused: Omit<LocalEmulator, 'owned' | 'close' | 'notes' | 'dashboardUrl'> | undefined =
    options.target && { ...options.target, dataDir: null };
  const running = reused ? null : await liveEmulator(options.project);
  if (running?.token && running.orgId) {
    if (options.port && options.port !== Number(new URL(running.url).port)) {
      notes.push(
        `--emulator-port ${options.port} is not used: an emulator already runs at ${running.url} (pid ${running.pid}); stop it first to start one on ${options.port}`,
      );
    }
    const { url, messagingUrl, token, apiKey, orgId, dataDir } = running;
    reused = {
      url,
      messagingUrl,
      token,
      apiKey,
      orgId,
      storeId: running.storeId ?? null,
      adminToken: env.adminToken() ?? running.adminToken,
      dataDir,
    };
  }
  if (reused)
    return {
      ...reused,
      dashboardUrl: await mintedLink(reused.url, reused.adminToken),
      owned: false,
      notes,
      close: async () => undefined,
    };

  const host = '127.0.0.1';
  const instead = "this project's emulator takes a free port instead";
  const port = await choosePort(
    options.port,
    DEFAULT_PORT,
    host,
    '--emulator-port',
    notes,
    instead,
  );
  const messagingPort = await choosePort(
    options.messagingPort,
    DEFAULT_MESSAGING_PORT,
    host,
    '--messaging-port',
    notes,
    instead,
  );

  const { startEmulator, StoreError } = await import('../../emulator/index.js');
  // The fault profile and seed are told in the session's notes, not on stderr by the emulator.
  const emulator = await startOnChosenPorts(
    { port, messagingPort },
    options,
    notes,
    instead,
    (port, messagingPort) =>
      startEmulator({
        dataDir: options.dataDir,
        port,
        messagingPort,
        ...options.faults,
        // None of the plugin's deliveries goes, not even an overdue retry of the last run, before dev's plugin answers.
        holdDeliveries: true,
        log: (line) => {
          // The fault profile and seed are in the session's notes already.
          if (!/^plugsmith emulator: fault injection on:/.test(line)) options.log?.(line);
        },
      }),
  ).catch(async (error: Error) => {
    if (error instanceof StoreError) throw new UserError(error.message, storeErrorExit(error));
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      const taken = (error as { port?: number }).port;
      throw new UserError(
        `cannot start the emulator: ${taken ? await describePort(taken) : error.message}; pass --emulator-port and --messaging-port (0 picks free ports)`,
        EXIT.CONFLICT,
      );
    }
    throw error;
  });
  if (!emulator.token || !emulator.orgId) {
    await emulator.close();
    throw new UserError(
      `the emulator's store in ${options.dataDir} has no user token to act with: delete that folder to start from the default workspace`,
      EXIT.VALIDATION,
    );
  }
  const { path } = await writeEmulatorState(
    emulator,
    emulatorOwner({ from: options.project, dataDir: options.dataDir }),
  );
  const { url, messagingUrl, token, apiKey, orgId, storeId, adminToken, dashboardUrl, dataDir } =
    emulator;
  const close = async () => {
    await emulator.close();
    await removeEmulatorState(path);
  };
  return {
    url,
    messagingUrl,
    token,
    apiKey,
    orgId,
    storeId,
    adminToken,
    dashboardUrl,
    owned: true,
    dataDir,
    notes,
    close,
  };
}

/** A fresh dashboard login link from a running emulator, or null when it will not give one (no admin token, an older emulator). */
async function mintedLink(url: string, adminToken: string | undefined): Promise<string | null> {
  if (!adminToken) return null;
  return withEmulatorAdmin(url, adminToken, (admin) => admin.dashboardLink()).then(
    (link) => link.dashboardUrl,
    () => null,
  );
}

/** Runs `work` with the admin API of the emulator at `url`, then closes the connections; one attempt (a probe), undici's timeouts unless `timeoutMs`. */
export async function withEmulatorAdmin<T>(
  url: string,
  adminToken: string | undefined,
  work: (admin: EmulatorAdminResource) => Promise<T>,
  timeoutMs = 0,
): Promise<T> {
  const client = createClient({ baseUrl: url, adminToken, timeoutMs, retries: 0 });
  try {
    return await work(client.emulator);
  } finally {
    await client.close();
  }
}
