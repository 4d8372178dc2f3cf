import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGroupGuard } from './group-guard.js';
import { PluginOutputCapture } from './plugin-output.js';
import type { OutputLine } from '../shared/plugin-output.js';

/** How the plugin is run and who hears about it. */
interface PluginProcessOptions {
  /** A shell command line, e.g. `npm run dev`. */
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Each line as the plugin wrote it, and as the capture kept it (timestamped, scrubbed, escaped). */
  onOutput: (line: string, stream: 'stdout' | 'stderr', kept: OutputLine) => void;
  /**
   * Where every line also goes (timestamped, scrubbed, to the emulator); its owner closes it (dev keeps one across restarts).
   * Default: one built from `env` (PLUGSMITH_BASE_URL, PLUGSMITH_PLUGIN_ID), closed at stop().
   */
  output?: PluginOutputCapture;
  /** The delay before the first restart after an exit; it doubles with each quick exit, up to 10 s. Default: 0.5 s. */
  firstRestartDelayMs?: number;
  onStart: (pid: number | undefined) => void;
  /** The plugin stopped on its own; `restartInMs` says when it is started again. */
  onExit: (info: {
    code: number | null;
    signal: NodeJS.Signals | null;
    restartInMs: number;
  }) => void;
}

const FIRST_RESTART_DELAY_MS = 500;
/** A start that lasted this long resets the backoff. */
const STABLE_AFTER_MS = 10_000;
const MAX_DELAY_MS = 10_000;
const STOP_GRACE_MS = 3000;
/** How long what SIGKILL left of a group may take to be gone (the kernel closes its sockets). */
const KILLED_WITHIN_MS = 1000;

/** The plugin in its own process group (`npm run dev` and what it starts stop together), restarted with a growing delay on a crash. */
export class PluginProcess {
  private child: ChildProcess | null = null;
  private startedAt = 0;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** A process group being stopped: settled once every process of it has ended. */
  private ending: Promise<void> | null = null;
  /** The children being stopped on purpose: their exit is terminate()'s to handle, not a crash. */
  private readonly terminated = new WeakSet<ChildProcess>();
  /** The guard of the running child's process group (group-guard.ts). */
  private guard: ChildProcess | undefined;

  /** The plugin's output as kept and posted to the emulator (plugin-output.ts). */
  readonly output: PluginOutputCapture;
  /** The capture was made here, so stop() closes it. */
  private readonly ownsOutput: boolean;

  constructor(private readonly options: PluginProcessOptions) {
    this.ownsOutput = options.output === undefined;
    this.output = options.output ?? PluginOutputCapture.forEnvironment(options.env);
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts the plugin (no-op while it runs). */
  start(): void {
    if (this.child || this.stopping) return;
    clearTimeout(this.restartTimer);
    const child = spawn(this.options.command, {
      cwd: this.options.cwd,
      env: this.options.env,
      shell: true,
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.startedAt = Date.now();
    // Should dev (or `scenario run --start`) be killed with SIGKILL, the guard ends the plugin's process group: no orphan
    // keeps the port.
    const guard =
      child.pid !== undefined && process.platform !== 'win32'
        ? startGroupGuard(child.pid, STOP_GRACE_MS)
        : undefined;
    this.guard = guard;
    for (const stream of ['stdout', 'stderr'] as const) {
      createInterface({ input: child[stream]! }).on('line', (line) => {
        this.options.onOutput(line, stream, this.output.line(line, stream));
      });
    }
    child.once('error', (error) => {
      const line = `cannot start \`${this.options.command}\`: ${error.message}`;
      this.options.onOutput(line, 'stderr', this.output.line(line, 'stderr'));
    });
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      // Stopped on purpose: the leader may be a shell that exits at once on SIGTERM while the plugin it started closes;
      // terminate() gives the group its grace period.
      if (this.terminated.has(child)) return;
      // What the group leader leaves behind (a server npm started) would hold the port; then the guard has nothing to do.
      this.signal(child, 'SIGKILL');
      guard?.kill('SIGKILL');
      if (this.stopping) return;
      const stable = Date.now() - this.startedAt >= STABLE_AFTER_MS;
      this.failures = stable ? 1 : this.failures + 1;
      const firstDelayMs = this.options.firstRestartDelayMs ?? FIRST_RESTART_DELAY_MS;
      const restartInMs = Math.min(firstDelayMs * 2 ** (this.failures - 1), MAX_DELAY_MS);
      this.options.onExit({ code, signal, restartInMs });
      this.restartTimer = setTimeout(() => this.start(), restartInMs);
    });
    this.options.onStart(child.pid);
  }

  /** Stops the plugin and whatever its process group left behind. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    // A stop under way (stop() called twice) ends the same group: it is not signalled again.
    if (this.ending) await this.ending;
    else if (child && child.exitCode === null && child.signalCode === null)
      await this.terminate(child);
    // The last lines (an exception at exit) reach the emulator before dev stops it.
    if (this.ownsOutput) await this.output.close();
    else await this.output.flush();
  }

  /**
   * SIGTERM to the process group, SIGKILL to what is left of it after a grace period; resolves when the group's processes
   * have ended (so its port is free). The group, not the leader: the leader is the shell of the command line, which may
   * exit at once on SIGTERM (dash forks the command rather than exec it) while the plugin closes its server.
   */
  private terminate(child: ChildProcess): Promise<void> {
    this.terminated.add(child);
    const guard = this.guard;
    const ending = this.endGroup(child).finally(() => {
      guard?.kill('SIGKILL');
      if (this.ending === ending) this.ending = null;
    });
    this.ending = ending;
    return ending;
  }

  /**
   * Ends `child`'s group: SIGTERM, then up to the grace period for every process of it to end, then SIGKILL to what is
   * left. Ended means the child's stdio pipes closed (its 'close' event: every process writing to dev has exited) and
   * then no process of the group is left running (one that writes to a file of its own closes no pipe; one that exited and
   * waits to be reaped holds nothing: groupLives).
   */
  private async endGroup(child: ChildProcess): Promise<void> {
    // A command that could not be started has no process to end.
    if (child.pid === undefined) return;
    // Its leader runs (stop() ends a running child only): 'close' is still to come.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const looking = new AbortController();
    const ended = groupEnded(child.pid, closed, looking.signal);
    this.signal(child, 'SIGTERM');
    try {
      if (await within(ended, STOP_GRACE_MS)) return;
      this.signal(child, 'SIGKILL');
      await within(ended, KILLED_WITHIN_MS);
    } finally {
      looking.abort();
    }
  }

  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      if (child.pid && process.platform !== 'win32') process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** How often a stopping group is looked at once its pipes closed. */
const GROUP_POLL_MS = 25;

/** Resolves when `closed` has and no process of the group `groupId` is left (on Windows: when `closed` has). */
async function groupEnded(
  groupId: number,
  closed: Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  await closed;
  if (process.platform === 'win32') return;
  while (!signal.aborted && (await groupLives(groupId)))
    await sleep(GROUP_POLL_MS, undefined, { signal }).catch(() => undefined);
}

/**
 * Whether a process of the group `groupId` still runs. Signal 0 to the group answers ESRCH when none is left; on Linux a
 * process that exited but is not reaped yet (a zombie) still answers, and one whose parent died first (the shell that ran
 * the plugin's command, killed by the same SIGTERM) waits for PID 1 to reap it: in a container without an init that can
 * take seconds, with nothing left running and its port free. So on Linux only a member that is not a zombie counts.
 */
export async function groupLives(groupId: number): Promise<boolean> {
  try {
    process.kill(-groupId, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  if (process.platform !== 'linux') return true;
  return groupHasRunningMember(groupId);
}

/** Whether /proc shows a process of group `groupId` that is not a zombie. */
async function groupHasRunningMember(groupId: number): Promise<boolean> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (stat === null) continue;
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so the fields are read after its last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === groupId && state !== 'Z') return true;
  }
  return false;
}

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  const timeout = new AbortController();
  const late = sleep(ms, false, { signal: timeout.signal }).catch(() => false);
  const settled = await Promise.race([promise.then(() => true), late]);
  timeout.abort();
  return settled;
}
