import { watch, type FSWatcher } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { createClient, type PlatformClient } from '../client/index.js';
import { deployManifest, type DeployOutcome } from '../manifest/deploy.js';
import { followDeliveries } from './delivery-stream.js';
import { ensureInstalls } from './installs.js';
import {
  liveEmulator,
  useLocalEmulator,
  type LocalEmulator,
  type LocalEmulatorOptions,
} from './local-emulator.js';
import { env as environment } from '../config/env.js';
import { PluginProcess } from './plugin-process.js';
import { watchSources } from './source-watch.js';
import { CrashWatch, type CrashReport } from './crash-watch.js';
import { describeTakenPort, freePortNear, portIsFree } from './ports.js';
import { isLoopback } from '../config/url.js';
import { loadManifest } from '../manifest/load.js';
import { UserError, EXIT } from '../errors.js';
import type { DeliveryAttemptNotice } from '../shared/contract/index.js';

/** What `plugsmith dev` runs with; the emulator's data dir, faults and a --base-url target as useLocalEmulator takes them. */
export interface DevOptions
  extends Pick<LocalEmulatorOptions, 'dataDir' | 'faults' | 'target' | 'messagingPort'> {
  manifestPath: string;
  /** Run in the manifest's folder. */
  command: string;
  /** Kinds of file (`*.py`) whose change restarts the plugin (manifest `dev.watch`). */
  watch?: string[];
  /** The environment the plugin inherits (plus PORT and the PLUGSMITH_* variables). */
  env: NodeJS.ProcessEnv;
  /** PORT for the plugin, and `${PORT}` in the manifest. Default: the webhookUrl's port. */
  pluginPort?: number;
  emulatorPort?: number;
  /** How long to keep trying to verify the webhook after the plugin starts answering. */
  verifyTimeoutMs: number;
  /** Create the manifest's installs once the webhook is verified. */
  installs: boolean;
}

/** Where a session tells what happens; the command prints it. */
export interface DevReporter {
  info(message: string): void;
  warn(message: string): void;
  delivery(notice: DeliveryAttemptNotice): void;
  /** The emulator is there: its URLs and a dashboard login link (null when none could be made). */
  emulatorReady?(emulator: {
    url: string;
    messagingUrl: string;
    dashboardUrl: string | null;
  }): void | Promise<void>;
  pluginOutput(line: string, stream: 'stdout' | 'stderr'): void;
}

const DEBOUNCE_MS = 250;
const PROBE_INTERVAL_MS = 200;
const SECRET_CHANGED = "the plugin's webhook secret changed (PLUGSMITH_WEBHOOK_SECRET)";

/** The inner loop: emulator, manifest deployed, plugin running and verified, deliveries live; redeploys on change, restarts on crash. */
export class DevSession {
  emulator: LocalEmulator | null = null;
  pluginId: string | null = null;
  private client: PlatformClient | null = null;
  /** The client of a running emulator this session set faults on, to turn them off. */
  private faultsToClear: PlatformClient | null = null;
  private plugin: PluginProcess | null = null;
  private sourceWatch: { ready: Promise<void>; close(): void } | null = null;
  /** The manifest and the schema files it reads; their folders are watched. */
  private watchedFiles = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  private debounce: NodeJS.Timeout | null = null;
  private readonly stopStream = new AbortController();
  /** The webhook secret the plugin process was (or will be) started with. */
  private secret = '';
  /** A look at the plugin's secret after a refused delivery, and when the last began. */
  private secretCheck: Promise<void> | null = null;
  private secretCheckedAt = 0;
  private webhookUrl: string | null = null;
  private pluginPort: number | null = null;
  /** PORT chosen by dev when the manifest's default port was taken (another project's plugin). */
  private movedPluginPort: number | undefined;
  private verified = false;
  /** Bumped whenever a newer verification should replace a running one. */
  private verifyRun = 0;
  private deploying: Promise<void> = Promise.resolve();
  private crashWatch: CrashWatch | null = null;
  /** Crashes reported so far, and when the last one was shown. */
  private crashes = 0;
  private lastCrashShownAt = 0;
  /** When dev last stopped the plugin on purpose (its processes may exit with an error then). */
  private stoppedPluginAt = 0;

  constructor(
    private readonly options: DevOptions,
    private readonly report: DevReporter,
  ) {}

  private get stopped(): boolean {
    return this.stopStream.signal.aborted;
  }

  /** Starts everything; resolves once the plugin was started (verification goes on in the background). */
  async start(): Promise<void> {
    const o = this.options;
    // First: with its port held by another process, the plugin would die unseen while that process answers the challenges.
    await this.choosePluginPort();
    this.emulator = await useLocalEmulator({
      target: o.target,
      dataDir: o.dataDir,
      project: dirname(o.manifestPath),
      port: o.emulatorPort,
      messagingPort: o.messagingPort,
      faults: o.faults,
    });
    const emu = this.emulator;
    for (const line of emu.notes) this.report.warn(line);
    this.report.info(
      emu.owned
        ? `emulator started at ${emu.url} (store ${emu.dataDir ?? 'in memory'})`
        : `using the running emulator at ${emu.url}`,
    );
    await this.report.emulatorReady?.({
      url: emu.url,
      messagingUrl: emu.messagingUrl,
      dashboardUrl: emu.dashboardUrl,
    });
    this.connect();
    if (o.faults?.faults !== undefined) {
      // An emulator started here has the profile already (read it back); a running one gets it now.
      const faults = this.client!.emulator.faults;
      const settings = emu.owned
        ? await faults.get()
        : await faults.set(o.faults.faults, o.faults.faultsSeed);
      if (!emu.owned) this.faultsToClear = this.client;
      this.report.warn(
        `fault injection on: ${settings.profile} (seed ${settings.seed}; reproduce with --faults-seed ${settings.seed})`,
      );
    }
    try {
      this.crashWatch = await CrashWatch.create();
      this.crashWatch.start((report) => this.onCrash(report));
    } catch (error) {
      // Without it, crashes under a watcher are only noticed when the webhook stops answering.
      this.report.warn(`crash reports are off: ${(error as Error).message}`);
    }
    const outcome = await this.deploy();
    await this.openStream();
    this.startPlugin();
    if (o.watch?.length) {
      this.sourceWatch = watchSources(
        dirname(o.manifestPath),
        o.watch,
        (file) => {
          if (this.stopped) return;
          this.report.info(`${file} changed: restarting the plugin`);
          this.stoppedPluginAt = Date.now();
          this.plugin?.restart();
        },
        (message) => this.report.warn(message),
      );
      await this.sourceWatch.ready;
    }
    this.watchFiles([this.options.manifestPath, ...outcome.manifest.schemaFiles]);
  }

  /** Stops the plugin, the stream, the watcher and an emulator this session started. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopStream.abort();
    this.verifyRun++;
    for (const watcher of this.watchers.values()) watcher.close();
    this.sourceWatch?.close();
    if (this.debounce) clearTimeout(this.debounce);
    await this.plugin?.stop();
    await this.crashWatch?.close();
    await this.deploying.catch(() => undefined);
    await this.secretCheck;
    // Before the client closes. After a followed restart it is the old, closed client: the new emulator's faults are not ours.
    await this.faultsToClear?.emulator.faults.set('off').catch(() => undefined);
    await this.client?.close();
    await this.emulator?.close();
  }

  /** The client of the emulator as it now is (its URLs and credentials). */
  private connect(): void {
    const emu = this.emulator!;
    this.client = createClient({
      baseUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      token: emu.token,
      apiKey: emu.apiKey ?? undefined,
      adminToken: emu.adminToken,
      userAgent: 'plugsmith-dev',
    });
  }

  /** The environment the manifest is read with: PORT is the plugin's when dev set it (--plugin-port, or a taken default moved). */
  private environment(): NodeJS.ProcessEnv {
    const port = this.options.pluginPort ?? this.movedPluginPort;
    return port !== undefined ? { ...this.options.env, PORT: String(port) } : this.options.env;
  }

  private async deploy(): Promise<DeployOutcome> {
    const emu = this.emulator!;
    // The emulator is the developer's own: what the manifest drops goes, as with --allow-deletes.
    const outcome = await deployManifest(
      this.client!,
      this.options.manifestPath,
      { identity: { storeId: emu.storeId, baseUrl: emu.url }, orgId: emu.orgId },
      { allowDeletes: true, environment: this.environment() },
    );
    this.pluginId = outcome.pluginId;
    for (const line of outcome.notes) this.report.warn(line);
    const what = outcome.done.map(
      (s) =>
        `${s.op} ${s.resource === 'externalEvent' ? 'external event' : s.resource} ${s.name}${s.changes.length && s.op === 'update' ? ` (${s.changes.map((c) => c.field).join(', ')})` : ''}`,
    );
    this.report.info(
      outcome.done.length
        ? `deployed ${outcome.manifest.plugin.name} (${outcome.pluginId}): ${what.join('; ')}`
        : `${outcome.manifest.plugin.name} (${outcome.pluginId}) is up to date`,
    );
    const plugin = await this.client!.plugins.get(outcome.pluginId!);
    const previousSecret = this.secret;
    this.secret = String(plugin.webhookSecret ?? '');
    const secretChanged = previousSecret !== '' && this.secret !== previousSecret;
    const previousUrl = this.webhookUrl;
    this.webhookUrl = plugin.webhookUrl ?? null;
    this.verified = Boolean(plugin.webhookUrlIsVerified);
    if (!this.webhookUrl)
      this.report.warn(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
        'the manifest has no plugin.webhookUrl: events cannot reach the plugin (add e.g. "http://127.0.0.1:${PORT:-3000}/webhook")',
      );
    const port = this.options.pluginPort ?? this.movedPluginPort ?? portOf(this.webhookUrl);
    const portChanged = previousUrl !== null && port !== this.pluginPort;
    this.pluginPort = port;
    if (portChanged && this.plugin) await this.restartPlugin(`the webhook port changed to ${port}`);
    else if (secretChanged && this.plugin) await this.restartPlugin(SECRET_CHANGED);
    return outcome;
  }

  /** Stops the running plugin and starts it again with the session's current port and secret. */
  private async restartPlugin(why: string): Promise<void> {
    const running = this.plugin;
    if (!running || this.stopped) return;
    this.report.info(`${why}: restarting the plugin`);
    this.stoppedPluginAt = Date.now();
    await running.stop();
    this.stoppedPluginAt = Date.now();
    // Another restart or stop() came meanwhile: starting one more would leave a process nothing stops.
    if (this.stopped || this.plugin !== running) return;
    const port = this.pluginPort;
    if (port !== null && !(await portIsFree(port)))
      this.report.warn(`the plugin cannot listen on ${port}: ${await describeTakenPort(port)}`);
    if (this.stopped || this.plugin !== running) return;
    this.plugin = null;
    this.startPlugin();
  }

  /** A 401/403 may mean the secret was rotated elsewhere (grace over): restart the plugin with the new one; at most once a second. */
  private afterDelivery(notice: DeliveryAttemptNotice): void {
    const status = notice.attempt.responseStatus;
    if (
      (status !== 401 && status !== 403) ||
      this.stopped ||
      this.secretCheck ||
      Date.now() - this.secretCheckedAt < 1000
    )
      return;
    this.secretCheckedAt = Date.now();
    this.secretCheck = (async () => {
      try {
        const plugin = await this.client!.plugins.get(this.pluginId!);
        const secret = String(plugin.webhookSecret ?? '');
        if (secret === '' || secret === this.secret || this.stopped) return;
        this.secret = secret;
        await this.restartPlugin(SECRET_CHANGED);
      } catch (error) {
        this.report.warn(`could not read the plugin's webhook secret: ${(error as Error).message}`);
      } finally {
        this.secretCheck = null;
      }
    })();
  }

  /** Follows the delivery stream; when lost, follows a restarted emulator (from the state file), else says so once and waits. */
  private async openStream(): Promise<void> {
    let opened: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    let first = true;
    let lost = false;
    void (async () => {
      while (!this.stopped) {
        const onOpen = () => {
          if (lost)
            this.report.info(
              `the emulator answers again at ${this.emulator!.url}; delivery stream reconnected`,
            );
          else if (!first) this.report.info('delivery stream reconnected');
          first = false;
          lost = false;
          opened();
        };
        const problem = await followDeliveries(
          this.client!,
          { pluginId: this.pluginId! },
          (notice) => {
            this.report.delivery(notice);
            this.afterDelivery(notice);
          },
          { signal: this.stopStream.signal, onOpen },
        ).then(
          () => 'the stream ended',
          (error: Error) => error.message,
        );
        if (this.stopped) return;
        const followed = await this.followEmulator().catch((error: Error) => {
          this.report.warn(`could not follow the restarted emulator: ${error.message}`);
          return false;
        });
        if (!followed && !lost) {
          lost = true;
          this.report.warn(
            `lost the emulator at ${this.emulator!.url} (${problem}); waiting for it to come back` +
              (this.emulator!.owned || this.options.target
                ? ''
                : ` (\`plugsmith emulator start\` in ${dirname(this.options.manifestPath)} starts it again)`),
          );
        }
        await sleep(lost ? 1000 : 250);
      }
    })();
    // Without the stream there is no live view; carry on after a while rather than hang.
    await Promise.race([open, sleep(5000, undefined, { ref: false })]);
  }

  /** Switches to the emulator the project's state file names when it is another (a restart) and deploys there; false if none. */
  private async followEmulator(): Promise<boolean> {
    const emu = this.emulator!;
    if (emu.owned || this.options.target || this.stopped) return false;
    const state = await liveEmulator(dirname(this.options.manifestPath));
    if (!state?.token || !state.orgId) return false;
    const adminToken = environment.adminToken() ?? state.adminToken;
    if (
      state.url === emu.url &&
      adminToken === emu.adminToken &&
      state.token === emu.token &&
      (state.storeId ?? null) === emu.storeId
    )
      return false;
    const moved =
      state.url !== emu.url ||
      state.messagingUrl !== emu.messagingUrl ||
      state.token !== emu.token ||
      state.apiKey !== emu.apiKey;
    Object.assign(emu, {
      url: state.url,
      messagingUrl: state.messagingUrl,
      token: state.token,
      apiKey: state.apiKey,
      orgId: state.orgId,
      adminToken,
      storeId: state.storeId ?? null,
    });
    this.report.info(`the emulator restarted at ${state.url} (pid ${state.pid}): following it`);
    const previous = this.client;
    this.connect();
    await previous?.close().catch(() => undefined);
    await this.queueDeploy('not deployed to the restarted emulator', async () => {
      if (moved) await this.restartPlugin(`the emulator's URLs changed`);
      else if (!this.verified) void this.whenUp(false);
    });
    return true;
  }

  private startPlugin(): void {
    const emu = this.emulator!;
    const env: NodeJS.ProcessEnv = {
      ...(this.crashWatch ? this.crashWatch.env(this.options.env) : this.options.env),
      ...(this.pluginPort !== null ? { PORT: String(this.pluginPort) } : {}),
      PLUGSMITH_BASE_URL: emu.url,
      PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
      PLUGSMITH_TOKEN: emu.token,
      ...(emu.apiKey ? { PLUGSMITH_API_KEY: emu.apiKey } : {}),
      PLUGSMITH_WEBHOOK_SECRET: this.secret,
      PLUGSMITH_PLUGIN_ID: this.pluginId!,
    };
    let restarted = false;
    this.plugin = new PluginProcess({
      command: this.options.command,
      cwd: dirname(this.options.manifestPath),
      env,
      onOutput: (line, stream) => this.report.pluginOutput(line, stream),
      onStart: (pid) => {
        this.report.info(
          `${restarted ? 'restarted' : 'started'} the plugin: ${this.options.command} (pid ${pid ?? '?'}, PORT=${this.pluginPort ?? 'unset'})`,
        );
        void this.whenUp(restarted);
      },
      onExit: ({ code, signal, restartInMs }) => {
        restarted = true;
        this.report.warn(
          `the plugin exited (${signal ? `signal ${signal}` : `code ${code}`}); restarting in ${(restartInMs / 1000).toFixed(1)}s (or save a file to retry now)`,
        );
      },
    });
    this.plugin.start();
  }

  /** Waits for the plugin to accept connections, then verifies its webhook (if it is not yet) and installs. */
  private async whenUp(restarted: boolean): Promise<void> {
    const run = ++this.verifyRun;
    if (!this.webhookUrl) return;
    let deadline = Date.now() + this.options.verifyTimeoutMs;
    const crashesBefore = this.crashes;
    while (!(await accepts(this.webhookUrl))) {
      if (run !== this.verifyRun || this.stopped || !this.plugin?.running) return;
      // A crash under a watcher that keeps running: wait, without a deadline, for it to restart the plugin.
      const crashed = this.crashes > crashesBefore;
      if (!crashed && Date.now() > deadline) {
        this.report.warn(
          `the plugin does not answer at ${this.webhookUrl} after ${Math.round(this.options.verifyTimeoutMs / 1000)}s: does it listen on PORT=${this.pluginPort}? (waiting for a change)`,
        );
        return;
      }
      await sleep(crashed ? 4 * PROBE_INTERVAL_MS : PROBE_INTERVAL_MS);
    }
    if (this.crashes > crashesBefore) deadline = Date.now() + this.options.verifyTimeoutMs;
    if (restarted || this.crashes > crashesBefore)
      this.report.info(`the plugin is back at ${this.webhookUrl}`);
    await this.verifyAndInstall(run, deadline);
  }

  private async verifyAndInstall(run: number, deadline: number): Promise<void> {
    let delay = 300;
    while (!this.verified) {
      if (run !== this.verifyRun || this.stopped) return;
      const result = await this.client!.plugins.verifyWebhook(this.pluginId!).catch(
        (error: Error) => ({ verified: false, reason: error.message }),
      );
      if (result.verified) {
        this.verified = true;
        this.report.info(`webhook verified: ${this.webhookUrl}`);
        break;
      }
      if (Date.now() + delay > deadline) {
        this.report.warn(
          `the webhook is not verified: ${String(result.reason ?? 'no reason given')} (fix the plugin; it is verified again when it restarts or the manifest changes)`,
        );
        return;
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 2000);
    }
    if (!this.options.installs || run !== this.verifyRun) return;
    try {
      const loaded = await loadManifest(this.options.manifestPath, this.environment());
      const done = await ensureInstalls(this.client!, loaded, this.pluginId!, this.emulator!.orgId);
      for (const i of done.installs)
        this.report.info(
          i.created
            ? `installed ${i.name} (${i.instanceId})`
            : `reusing instance ${i.instanceId} on ${i.entityId} (${i.name})`,
        );
      if (done.others.length)
        this.report.info(
          `the plugin's other instances: ${done.others.map((i) => `${i.instanceId} on ${i.entityId} (${i.name})`).join(', ')}`,
        );
    } catch (error) {
      this.report.warn(`installs failed: ${(error as Error).message}`);
    }
  }

  /**
   * The plugin's port must be free when dev starts. One asked for (--plugin-port, or PORT in the environment) that is taken is
   * an error naming its holder; the manifest's default (`${PORT:-3000}`) taken by another process (a second project's plugin)
   * moves to a free port, as the emulator's do: the plugin gets it as PORT and the webhook URL is deployed with it.
   */
  private async choosePluginPort(): Promise<void> {
    const o = this.options;
    if (o.pluginPort !== undefined) {
      if (await portIsFree(o.pluginPort)) return;
      throw new UserError(
        `the plugin's ${await describeTakenPort(o.pluginPort)} (--plugin-port): stop that process, or pass another --plugin-port`,
        EXIT.CONFLICT,
      );
    }
    const manifest = await loadManifest(o.manifestPath, this.environment());
    const webhookUrl = manifest.plugin.webhookUrl;
    if (typeof webhookUrl !== 'string' || !isLoopback(webhookUrl)) return;
    const port = portOf(webhookUrl);
    if (port === null) return;
    const portIsDefault = manifest.expandedVariables.some(
      (v) => v.variable === 'PORT' && v.fromDefault,
    );
    if (await portIsFree(port)) return;
    const taken = await describeTakenPort(port);
    const refusal = (why: string) =>
      new UserError(
        `the plugin's ${taken}: stop that process (another \`plugsmith dev\`?), or give the plugin another port with --plugin-port${why}`,
        EXIT.CONFLICT,
      );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    const withoutPortVariable = ' (with ${PORT} in plugin.webhookUrl)';
    if (!portIsDefault)
      throw refusal(
        manifest.expandedVariables.some((v) => v.variable === 'PORT')
          ? ' (PORT is set in the environment)'
          : withoutPortVariable,
      );
    const free = await freePortNear(port);
    // The webhook URL must follow PORT, or the platform would post to the process holding the default.
    const moved = await loadManifest(o.manifestPath, { ...o.env, PORT: String(free) });
    const followsPort =
      typeof moved.plugin.webhookUrl === 'string' && portOf(moved.plugin.webhookUrl) === free;
    if (!followsPort) throw refusal(withoutPortVariable);
    this.movedPluginPort = free;
    this.report.warn(
      `the plugin's ${taken}: the plugin gets PORT=${free} instead, and its webhook URL is deployed with it (--plugin-port picks one)`,
    );
  }

  /** A Node process of the plugin ended with an error: say so at once, with the error. */
  private onCrash(report: CrashReport): void {
    const now = Date.now();
    if (this.stopped || now - this.stoppedPluginAt < 2000) return;
    // `npm run dev` ends with code 1 right after the server it ran: one crash, one line.
    if (!report.error && now - this.lastCrashShownAt < 2000) return;
    this.crashes++;
    this.lastCrashShownAt = now;
    const why = report.error ?? `exit code ${report.code}`;
    const leader = this.plugin;
    void sleep(300).then(() => {
      if (this.stopped) return;
      const keepsRunning = leader !== null && leader === this.plugin && leader.running;
      this.report.warn(
        `the plugin crashed: ${why} (pid ${report.pid}: node ${report.command}${report.error ? `, exit code ${report.code}` : ''})` +
          (keepsRunning
            ? `; \`${this.options.command}\` keeps running (a watcher?): fix the plugin and save, dev verifies it once it answers`
            : ''),
      );
    });
  }

  /** Redeploys when the manifest or a schema file it reads changes; folders are watched, as editors save by renaming a new file over the old. */
  private watchFiles(files: string[]): void {
    if (this.stopped) return;
    this.watchedFiles = new Set(files);
    const folders = new Set(files.map((file) => dirname(file)));
    for (const [folder, watcher] of this.watchers) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, (_event, name) => {
          if (name !== null && !this.watchedFiles.has(join(folder, name))) return;
          if (this.debounce) clearTimeout(this.debounce);
          this.debounce = setTimeout(() => void this.redeploy(), DEBOUNCE_MS);
        });
        watcher.on('error', (error) =>
          this.report.warn(`cannot watch ${folder}: ${error.message}`),
        );
        this.watchers.set(folder, watcher);
      } catch (error) {
        this.report.warn(`cannot watch ${folder}: ${(error as Error).message}`);
      }
    }
  }

  private redeploy(): Promise<void> {
    return this.queueDeploy('not redeployed', (outcome, webhookUrlBefore) => {
      this.watchFiles([this.options.manifestPath, ...outcome.manifest.schemaFiles]);
      if (!this.plugin?.running) this.plugin?.restart();
      else if (!this.verified || webhookUrlBefore !== this.webhookUrl || outcome.done.length)
        void this.whenUp(false);
    });
  }

  /** Deploys once the deploy under way is done, then runs `then`; a failure is told after `failure`. */
  private queueDeploy(
    failure: string,
    then: (outcome: DeployOutcome, webhookUrlBefore: string | null) => void | Promise<void>,
  ): Promise<void> {
    this.deploying = this.deploying.then(async () => {
      if (this.stopped) return;
      try {
        const webhookUrlBefore = this.webhookUrl;
        await then(await this.deploy(), webhookUrlBefore);
      } catch (error) {
        this.report.warn(`${failure}: ${(error as Error).message}`);
      }
    });
    return this.deploying;
  }
}

function portOf(url: string | null): number | null {
  if (!url) return null;
  const parsed = new URL(url);
  return parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
}

/** Whether something accepts TCP connections at the URL's host and port. */
function accepts(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({
      host: new URL(url).hostname.replace(/^\[|\]$/g, ''),
      port: portOf(url)!,
    });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}
