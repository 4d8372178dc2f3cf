import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandHandler } from '../types.js';
import { alive, chooseEmulator, namedEmulator, noEmulatorMessage } from '../../config/emulators.js';
import { EmulatorAdmin } from '../../dev/emulator-admin.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';

/**
 * Stops the emulator of [project] (a folder or URL), else the one this command acts on; SIGTERM only
 * after its health check answered the pid of its state file, so a reused pid is never signalled.
 */
const stop: CommandHandler<{ wait: number }> = async ({ args, options, io, global }) => {
  const asked = args[0];
  const choice = asked === undefined ? await chooseEmulator() : { state: await namedEmulator(asked), project: null };
  const state = choice.state;
  if (!state) throw new UserError(noEmulatorMessage(choice), EXIT.NOT_FOUND);
  let health: Record<string, unknown>;
  try {
    health = await new EmulatorAdmin(state.url, { adminToken: state.adminToken, timeoutMs: 5000 }).health();
  } catch (error) {
    throw new UserError(`the emulator of ${state.project ?? state.dataDir ?? 'an in-memory store'} (pid ${state.pid}) does not answer at ${state.url} (${(error as Error).message}): not signalling a process that may not be it`, EXIT.NETWORK);
  }
  if (health.pid !== state.pid) {
    throw new UserError(`${state.url} is answered by pid ${String(health.pid)}, not the pid ${state.pid} its state file names: not stopping it`, EXIT.CONFLICT);
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + options.wait * 1000;
  while (alive(state.pid) && Date.now() < deadline) await sleep(100);
  if (alive(state.pid)) throw new UserError(`sent SIGTERM to the emulator (pid ${state.pid}), but it still runs after ${options.wait}s`, EXIT.UNEXPECTED);
  const stopped = { project: state.project ?? null, dataDir: state.dataDir, url: state.url, pid: state.pid, stopped: true };
  printResult(io, global, stopped, () => `stopped the emulator of ${state.project ?? state.dataDir ?? 'an in-memory store'} (${state.url}, pid ${state.pid})\n`);
};

export default stop;
