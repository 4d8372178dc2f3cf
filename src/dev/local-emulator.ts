import { readFile, rm } from 'node:fs/promises';
import { readEmulatorState, writeEmulatorState, type EmulatorState } from '../config/profiles.js';
import { emulatorStatePath } from '../config/paths.js';
import { UserError, EXIT } from '../errors.js';
import { EmulatorAdmin } from './emulator-admin.js';

/** The emulator a dev session talks to: one that was already running, or one it started in-process. */
export interface LocalEmulator {
  url: string;
  messagingUrl: string;
  token: string;
  apiKey: string | null;
  orgId: string;
  /** True when this process started it (and stops it). */
  owned: boolean;
  dataDir: string | null;
  close(): Promise<void>;
}

/** How to start one when none runs. */
export interface LocalEmulatorOptions {
  /** An emulator named on the command line (--base-url): used as it is, never started. */
  target?: Omit<LocalEmulator, 'owned' | 'dataDir' | 'close'>;
  dataDir: string;
  port: number;
  messagingPort: number;
}

async function answers(state: EmulatorState): Promise<boolean> {
  try {
    await new EmulatorAdmin(state.url).health();
    return true;
  } catch {
    return false;
  }
}

/**
 * Reuses the emulator the state file names when it answers; otherwise starts one in this process
 * on a data dir (falling back to free ports when the default ones are taken) and writes the state
 * file, so `plugsmith trigger` and `plugsmith logs` in another terminal find it.
 */
export async function useLocalEmulator(options: LocalEmulatorOptions): Promise<LocalEmulator> {
  if (options.target) {
    const target = options.target;
    try {
      await new EmulatorAdmin(target.url).health();
    } catch (error) {
      throw new UserError(`no emulator answers at ${target.url} (from --base-url): ${(error as Error).message}`, EXIT.NETWORK);
    }
    return { ...target, owned: false, dataDir: null, close: async () => undefined };
  }
  const state = await readEmulatorState();
  if (state && state.token && state.orgId && (await answers(state))) {
    return { url: state.url, messagingUrl: state.messagingUrl, token: state.token, apiKey: state.apiKey, orgId: state.orgId, owned: false, dataDir: state.dataDir, close: async () => undefined };
  }

  const { startEmulator, StoreError } = await import('../../emulator/index.js');
  const start = (port: number, messagingPort: number) => startEmulator({ dataDir: options.dataDir, port, messagingPort });
  let emulator;
  try {
    try {
      emulator = await start(options.port, options.messagingPort);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      emulator = await start(0, 0);
    }
  } catch (error) {
    if (error instanceof StoreError) throw new UserError(error.message, EXIT.UNEXPECTED);
    throw error;
  }
  if (!emulator.token || !emulator.orgId) {
    await emulator.close();
    throw new UserError(`the emulator's store in ${options.dataDir} has no user token to act with: delete that folder to start from the default workspace`, EXIT.UNEXPECTED);
  }
  const path = emulatorStatePath();
  const written = await writeEmulatorState(emulator);
  const running = emulator;
  return {
    url: running.url,
    messagingUrl: running.messagingUrl,
    token: running.token!,
    apiKey: running.apiKey,
    orgId: running.orgId!,
    owned: true,
    dataDir: running.dataDir,
    async close() {
      await running.close();
      try {
        const current = JSON.parse(await readFile(path, 'utf8')) as { pid?: number };
        if (current.pid === process.pid) await rm(path, { force: true });
      } catch {
        // already gone
      }
    },
  };
}
