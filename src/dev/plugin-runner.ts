import { setTimeout as sleep } from 'node:timers/promises';
import { CrashWatch, type CrashReport } from './crash-watch.js';
import { PluginOutputCapture, SECRET_VARIABLES, type OutputTarget } from './plugin-output.js';
import { PluginProcess } from './plugin-process.js';
import type { OutputLine } from '../shared/plugin-output.js';
import { describeTakenPort, portIsFree } from './ports.js';

/** What the plugin is started with; read at each start, so a restart takes the newest. */
export interface PluginLaunch {
  /** PORT, or null to leave the environment's. */
  port: number | null;
  /** The environment beside PORT: the emulator's URLs and credentials, the webhook secret, the plugin's id. */
  env: NodeJS.ProcessEnv;
  /** Where its output is posted: the emulator dev talks to, with dev's own admin credential (null: kept here only). */
  output: OutputTarget | null;
}

/** Where the plugin's life is told. */
export interface PluginRunnerReport {
  info(message: string): void;
  warn(message: string): void;
  /** A line the plugin wrote, and as the capture kept it (timestamped, scrubbed, escaped). */
  pluginOutput(line: string, stream: 'stdout' | 'stderr', kept: OutputLine): void;
  /**
   * The plugin stopped on its own (`why`: "exited with code 1", "crashed: Error: …"): its process exited, or one of its Node
   * processes crashed. Told besides the warning; `scenario run --start` fails the run on it before the plugin is up.
   */
  pluginStopped?(why: string): void;
}

interface PluginRunnerOptions {
  /** A shell command line, run in `cwd`. */
  command: string;
  cwd: string;
  /** The environment the plugin inherits. */
  env: NodeJS.ProcessEnv;
  launch: () => PluginLaunch;
  report: PluginRunnerReport;
  /** The delay before the first restart after the plugin exits (PluginProcess; default 0.5 s, doubling). */
  firstRestartDelayMs?: number;
  /** A process of the plugin started (`restarted`: not the first); the session waits for it to answer. */
  onStart: (restarted: boolean) => void;
  /** The plugin said its port is in use (`EADDRINUSE`, `Address already in use`), or its process exited. */
  onTrouble?: (what: 'port in use' | 'exited') => void;
  /**
   * The plugin is about to be down: before its first start, before a restart stops it, when it exited, and when one of its
   * Node processes crashed. The session holds the plugin's deliveries until it answers again; awaited before a (re)start.
   */
  onDown?: () => Promise<void>;
  /**
   * A Node process of the plugin crashed and is gone while the command keeps running (a watcher such as `tsx watch` or
   * `node --watch`, which starts the plugin again when a file changes): no start of dev's will say when it is back, so the
   * session waits for it to answer again.
   */
  onCrashUnderWatcher?: () => void;
}

/** How Node (`EADDRINUSE`) and Python (`[Errno 98] Address already in use`) say a port is taken. */
export const PORT_IN_USE = /EADDRINUSE|address already in use/i;

/** How long a crashed process may take to be gone (it wrote its report on its way out). */
const GONE_WITHIN_MS = 2000;

/**
 * The plugin process as dev runs it: started, restarted with a backoff when it exits (PluginProcess), restarted on purpose
 * when what it runs with changes, and watched for crashes of its Node processes (CrashWatch). Every start, restart and stop
 * goes through one queue, one at a time: a restart asked for while another has not started its new process yet joins it,
 * so two reasons at once (a redeploy and a secret check) make one new process, and nothing starts after stop().
 */
export class PluginRunner {
  private process: PluginProcess | null = null;
  /** The plugin's output, one capture across its restarts (a new one only when where it goes or what it scrubs changed). */
  private output: { key: string; capture: PluginOutputCapture } | null = null;
  private crashWatch: CrashWatch | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** A restart queued or stopping the old process; it has not started the new one yet. */
  private pendingRestart: Promise<void> | null = null;
  private stopped = false;
  /** Crashes reported so far, and when the last one was shown. */
  private crashCount = 0;
  private lastCrashShownAt = 0;
  /** When dev last stopped the plugin on purpose (its processes may exit with an error then). */
  private stoppedOnPurposeAt = 0;

  constructor(private readonly options: PluginRunnerOptions) {}

  /** Crashes of the plugin's Node processes seen so far (a watcher such as `tsx watch` may outlive them). */
  get crashes(): number {
    return this.crashCount;
  }

  /** Whether a process of the plugin runs (not waiting for a restart after an exit). */
  get running(): boolean {
    return this.process?.running ?? false;
  }

  /** Sets up crash reports (without them, a crash under a watcher is noticed when the webhook stops answering). */
  async prepare(): Promise<void> {
    try {
      this.crashWatch = await CrashWatch.create();
      this.crashWatch.start((report) => this.onCrash(report));
    } catch (error) {
      this.options.report.warn(`crash reports are off: ${(error as Error).message}`);
    }
  }

  /** Starts the plugin for the first time. */
  start(): Promise<void> {
    return this.enqueue(async () => {
      if (this.stopped || this.process) return;
      await this.options.onDown?.();
      if (!this.stopped) this.spawn();
    });
  }

  /**
   * Stops the running plugin and starts it again with what `launch` gives now; says `why` (null: quietly). Resolves once
   * the new process started (or the session stopped).
   */
  restart(why: string | null): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.pendingRestart) return this.pendingRestart;
    const restart = this.enqueue(async () => {
      const running = this.process;
      if (this.stopped || !running) return;
      if (why !== null) this.options.report.info(`${why}: restarting the plugin`);
      // Deliveries wait from before the plugin stops until it answers again: none is spent on "connection refused".
      await this.options.onDown?.();
      this.stoppedOnPurposeAt = Date.now();
      await running.stop();
      this.stoppedOnPurposeAt = Date.now();
      if (this.stopped) return;
      const { port } = this.options.launch();
      if (port !== null && !(await portIsFree(port)))
        this.options.report.warn(
          `the plugin cannot listen on ${port}: ${await describeTakenPort(port)}`,
        );
      if (this.stopped) return;
      // From here a new reason to restart needs a restart of its own: the process it would restart is the new one.
      this.pendingRestart = null;
      this.spawn();
    });
    this.pendingRestart = restart;
    return restart;
  }

  /** Stops the plugin (its whole process group) and the crash reports; nothing starts afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stoppedOnPurposeAt = Date.now();
    // A restart under way finishes first (it sees `stopped` and starts nothing); then the process it left goes.
    await this.enqueue(async () => {
      await this.process?.stop();
    });
    // The last lines (an exception at exit) reach the emulator before dev stops it.
    await this.output?.capture.close();
    await this.crashWatch?.close();
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** A new process of the plugin; it says `started` (a restart on purpose was announced already), `restarted` after an exit. */
  private spawn(): void {
    const { command, cwd, report } = this.options;
    const launch = this.options.launch();
    const env: NodeJS.ProcessEnv = {
      ...(this.crashWatch ? this.crashWatch.env(this.options.env) : this.options.env),
      ...(launch.port !== null ? { PORT: String(launch.port) } : {}),
      ...launch.env,
    };
    let restarted = false;
    this.process = new PluginProcess({
      command,
      cwd,
      env,
      output: this.captureFor(launch, env),
      firstRestartDelayMs: this.options.firstRestartDelayMs,
      onOutput: (line, stream, kept) => {
        report.pluginOutput(line, stream, kept);
        if (PORT_IN_USE.test(line)) this.options.onTrouble?.('port in use');
      },
      onStart: (pid) => {
        report.info(
          `${restarted ? 'restarted' : 'started'} the plugin: ${command} (pid ${pid ?? '?'}, PORT=${launch.port ?? 'unset'})`,
        );
        this.options.onStart(restarted);
      },
      onExit: ({ code, signal, restartInMs }) => {
        restarted = true;
        report.pluginStopped?.(signal ? `exited on signal ${signal}` : `exited with code ${code}`);
        report.warn(
          `the plugin exited (${signal ? `signal ${signal}` : `code ${code}`}); restarting in ${(restartInMs / 1000).toFixed(1)}s (or save a file to retry now)`,
        );
        void this.options.onDown?.();
        this.options.onTrouble?.('exited');
      },
    });
    this.process.start();
  }

  /** The capture of the plugin's output: the one kept so far, unless the emulator, the plugin or a credential changed. */
  private captureFor(launch: PluginLaunch, env: NodeJS.ProcessEnv): PluginOutputCapture {
    const secrets = SECRET_VARIABLES.map((name) => env[name]);
    const target = launch.output;
    const key = JSON.stringify([target?.baseUrl, target?.pluginId, target?.adminToken, secrets]);
    if (this.output?.key === key) return this.output.capture;
    const previous = this.output?.capture;
    if (previous) void previous.close();
    const capture = new PluginOutputCapture(target, secrets);
    this.output = { key, capture };
    return capture;
  }

  /** A Node process of the plugin ended with an error: say so at once, with the error. */
  private onCrash(crash: CrashReport): void {
    const now = Date.now();
    if (this.stopped || now - this.stoppedOnPurposeAt < 2000) return;
    // `npm run dev` ends with code 1 right after the server it ran: one crash, one line.
    if (!crash.error && now - this.lastCrashShownAt < 2000) return;
    this.crashCount++;
    this.lastCrashShownAt = now;
    const why = crash.error ?? `exit code ${crash.code}`;
    const leader = this.process;
    this.options.report.pluginStopped?.(`crashed: ${why}`);
    // Held from now: should the command exit too, its restart holds them anyway; should it keep running, until the plugin answers.
    void this.options.onDown?.();
    void sleep(300).then(async () => {
      if (this.stopped) return;
      const keepsRunning = leader !== null && leader === this.process && leader.running;
      this.options.report.warn(
        `the plugin crashed: ${why} (pid ${crash.pid}: node ${crash.command}${crash.error ? `, exit code ${crash.code}` : ''})` +
          (keepsRunning
            ? `; \`${this.options.command}\` keeps running (a watcher?): fix the plugin and save, dev holds its deliveries and verifies it once it answers`
            : ''),
      );
      if (!keepsRunning) return;
      // The report was written on the process's way out: until it is gone, its port may still take connections.
      await gone(crash.pid, GONE_WITHIN_MS);
      if (!this.stopped && leader === this.process && leader.running)
        this.options.onCrashUnderWatcher?.();
    });
  }
}

/** Resolves once the process is gone, or after `withinMs` (a zombie nobody reaps has closed its sockets already). */
async function gone(pid: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') return;
    }
    await sleep(50);
  }
}
