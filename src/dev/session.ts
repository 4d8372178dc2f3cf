import { dirname } from 'node:path';
import { EXIT, UserError } from '../errors.js';
import { targetKey } from '../manifest/state.js';
import { deployManifest, type DeployOutcome } from '../manifest/deploy.js';
import type { DeliveryAttemptNotice } from '#contract';
import type { OutputLine } from '../shared/plugin-output.js';
import { DeliveryHold } from './delivery-hold.js';
import { EmulatorLink } from './emulator-link.js';
import type { LocalEmulator, LocalEmulatorOptions } from './local-emulator.js';
import { ManifestWatch } from './manifest-watch.js';
import { claimProjectPlugin, type Claim } from './port-claims.js';
import { PluginPort, portOf } from './plugin-port.js';
import { portIsFree } from './ports.js';
import { PluginRunner } from './plugin-runner.js';
import { watchSources } from './source-watch.js';
import { SecretWatch } from './secret-watch.js';
import { WebhookVerifier } from './webhook-verify.js';

// The dev loop, cut along its seams: the emulator (emulator-link.ts: client, delivery stream, a restarted emulator
// followed, faults), the plugin process (plugin-runner.ts: start, crash reports, restarts one at a time), the manifest
// watch and its deploy queue (manifest-watch.ts), verify-and-install (webhook-verify.ts), the plugin's port
// (plugin-port.ts), the claims of ports and of the project's plugin (port-claims.ts) and the secret read again after a
// refused delivery (secret-watch.ts). This file deploys and decides what a deploy means for the plugin.

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
  /** The delay before the plugin is started again after it exits (default 0.5 s, doubling with each quick exit). */
  firstRestartDelayMs?: number;
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
  /** The plugin answered its challenge for the first time (and the installs are made): the loop is ready. */
  ready?(webhookUrl: string): void;
  pluginOutput(line: string, stream: 'stdout' | 'stderr', kept: OutputLine): void;
  /** The plugin stopped on its own: it exited, or one of its Node processes crashed (PluginRunnerReport). */
  pluginStopped?(why: string): void;
  /**
   * A line of an emulator dev started (`plugsmith emulator: …`: a failure inside it during an attempt, a hold that expired);
   * default: told as a warning.
   */
  emulatorLog?(line: string): void;
}

/** What the last deploy gave: the plugin as the emulator has it. */
interface Deployed {
  pluginId: string;
  /** The webhook secret the plugin process was (or will be) started with. */
  secret: string;
  webhookUrl: string | null;
  port: number | null;
}

const SECRET_CHANGED = "the plugin's webhook secret changed (PLUGSMITH_WEBHOOK_SECRET)";

/** The inner loop: emulator, manifest deployed, plugin running and verified, deliveries live; redeploys on change, restarts on crash. */
export class DevSession {
  private link: EmulatorLink | null = null;
  private deployed: Deployed | null = null;
  /** The plugin's port: its claim, whether it may move, the PORT dev gives the plugin (plugin-port.ts). */
  private readonly pluginPort: PluginPort;
  /** A move of the plugin's port under way (onPluginTrouble), joined by trouble told meanwhile. */
  private portMove: Promise<void> | null = null;
  /** The claim on this project's plugin on this emulator (port-claims.ts), released at stop(). */
  private pluginClaim: Claim | null = null;
  /** The plugin answered its challenge once: from then on a taken port is the user's to fix, not a reason to move. */
  private ready = false;
  private readonly plugin: PluginRunner;
  private readonly verifier: WebhookVerifier;
  /** The plugin's deliveries wait while it is not up (from before each start until it answers). */
  private readonly hold: DeliveryHold;
  private readonly manifestWatch: ManifestWatch;
  private sourceWatch: { ready: Promise<void>; close(): void } | null = null;
  /** Reads the plugin's secret again after a refused delivery (secret-watch.ts). */
  private readonly secretWatch: SecretWatch;
  private stopped = false;

  constructor(
    private readonly options: DevOptions,
    private readonly report: DevReporter,
  ) {
    this.pluginPort = new PluginPort(options.pluginPort, dirname(options.manifestPath));
    this.plugin = new PluginRunner({
      command: options.command,
      cwd: dirname(options.manifestPath),
      env: options.env,
      launch: () => this.launch(),
      firstRestartDelayMs: options.firstRestartDelayMs,
      report,
      onStart: (restarted) => void this.verifier.started(restarted),
      onTrouble: (what) => void this.onPluginTrouble(what),
      onDown: () => this.hold.hold(),
      onCrashUnderWatcher: () => {
        if (!this.stopped) void this.verifier.crashedUnderWatcher();
      },
    });
    this.hold = new DeliveryHold({
      client: () => this.link!.client,
      pluginId: () => this.deployed?.pluginId ?? null,
      warn: (message) => report.warn(message),
    });
    this.verifier = new WebhookVerifier({
      manifestPath: options.manifestPath,
      verifyTimeoutMs: options.verifyTimeoutMs,
      installs: options.installs,
      plugin: this.plugin,
      report,
      context: () => ({
        client: this.link!.client,
        pluginId: this.deployed!.pluginId,
        webhookUrl: this.deployed!.webhookUrl,
        port: this.deployed!.port,
        orgId: this.link!.emulator.orgId,
        environment: this.environment(),
      }),
      onReady: (webhookUrl) => {
        this.ready = true;
        this.report.ready?.(webhookUrl);
      },
      onUp: () => this.hold.release(),
    });
    this.manifestWatch = new ManifestWatch(
      () => void this.redeploy(),
      (message) => report.warn(message),
    );
    this.secretWatch = new SecretWatch({
      current: async () =>
        String((await this.link!.client.plugins.get(this.deployed!.pluginId)).webhookSecret ?? ''),
      started: () => this.deployed!.secret,
      restartWith: async (secret) => {
        this.deployed!.secret = secret;
        await this.restartPlugin(SECRET_CHANGED);
      },
      warn: (message) => report.warn(message),
    });
  }

  /** The emulator in use (null before start()). */
  get emulator(): LocalEmulator | null {
    return this.link?.emulator ?? null;
  }

  /** The deployed plugin's id (null before the first deploy). */
  get pluginId(): string | null {
    return this.deployed?.pluginId ?? null;
  }

  /** Starts everything; resolves once the plugin was started (verification goes on in the background, `ready` tells its end). */
  async start(): Promise<void> {
    const o = this.options;
    // First: with its port held by another process, the plugin would die unseen while that process answers the challenges.
    const moved = await this.pluginPort.choose(o.manifestPath, this.environment());
    this.link = await EmulatorLink.open(
      {
        manifestPath: o.manifestPath,
        target: o.target,
        dataDir: o.dataDir,
        port: o.emulatorPort,
        messagingPort: o.messagingPort,
        faults: o.faults,
        log: (line) =>
          this.report.emulatorLog ? this.report.emulatorLog(line) : this.report.warn(line),
      },
      this.report,
    );
    const emu = this.link.emulator;
    // A second dev of this project is refused before it says anything of the port it would have used.
    await this.claimPlugin(emu);
    if (moved)
      this.report.warn(
        `${moved.why}: the plugin gets PORT=${moved.port} instead, and its webhook URL is deployed with it (--plugin-port picks one)`,
      );
    await this.report.emulatorReady?.({
      url: emu.url,
      messagingUrl: emu.messagingUrl,
      dashboardUrl: emu.dashboardUrl,
    });
    if (o.faults) await this.link.applyFaults(o.faults);
    await this.plugin.prepare();
    const outcome = await this.deploy();
    // An emulator started here holds every plugin it has; a running one holds this plugin from now until it answers.
    await this.hold.hold();
    await this.link.follow({
      pluginId: () => this.deployed!.pluginId,
      onAttempt: (notice) => {
        this.report.delivery(notice);
        this.secretWatch.answered(notice.attempt.responseStatus ?? null);
      },
      onRestarted: (moved) =>
        this.manifestWatch.queue('not deployed to the restarted emulator', async () => {
          await this.deploy();
          if (moved) await this.restartPlugin(`the emulator's URLs changed`);
          else if (!this.verifier.verified) void this.verifier.check(false);
        }),
    });
    await this.plugin.start();
    if (o.watch?.length) {
      this.sourceWatch = watchSources(
        dirname(o.manifestPath),
        o.watch,
        (file) => {
          if (!this.stopped) void this.plugin.restart(`${file} changed`);
        },
        (message) => this.report.warn(message),
      );
      await this.sourceWatch.ready;
    }
    this.manifestWatch.watch([o.manifestPath, ...outcome.manifest.schemaFiles]);
  }

  /** Stops the plugin, the stream, the watchers and an emulator this session started. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // No read of the secret starts from now, nor restarts the plugin once read.
    const secretWatchStopped = this.secretWatch.stop();
    this.link?.stopFollowing();
    this.verifier.cancel();
    this.sourceWatch?.close();
    // A hold on an emulator dev started ends with it, and what it holds stays pending for the next start; one that outlives
    // dev is released, so its deliveries are not held up to the hold's bound after dev is gone.
    try {
      await this.hold.stop(this.link !== null && !this.link.emulator.owned);
      await this.plugin.stop();
      await this.manifestWatch.close();
      await secretWatchStopped;
      await this.link?.close();
    } finally {
      // Given back whatever failed above: an in-process session (scenario run --start, a test) outlives its stop.
      await this.pluginPort.release();
      await this.pluginClaim?.release();
    }
  }

  /**
   * Holds this project's plugin on this emulator for this dev: a second dev of the project against the same emulator
   * would deploy the webhook to its own plugin's port and take every delivery from the first, which would say nothing.
   * Without a writable config dir there are no claims, as for ports.
   */
  private async claimPlugin(emu: LocalEmulator): Promise<void> {
    const target = targetKey({ storeId: emu.storeId, baseUrl: emu.url });
    const claim = await claimProjectPlugin(this.options.manifestPath, target).catch(() => null);
    if (claim && 'heldBy' in claim) {
      const pid = claim.heldBy.pid > 0 ? ` (pid ${claim.heldBy.pid})` : '';
      const file = claim.heldBy.file
        ? `. If no such dev runs, delete its claim: ${claim.heldBy.file}`
        : '';
      throw new UserError(
        `another \`plugsmith dev\`${pid} runs this project's plugin on the emulator at ${emu.url}: a second one would take its webhook and every delivery. Stop that one first (Ctrl+C in its terminal), or give this one an emulator of its own (--data-dir DIR)${file}`,
        EXIT.CONFLICT,
      );
    }
    this.pluginClaim = claim;
  }

  /**
   * The plugin could not listen on its first start (it said the port is in use, or exited while another process holds
   * the port: something that claims no port took it between dev's check and the plugin's listen): a default port moves
   * to a free one, claimed, the manifest is deployed with it and the plugin restarted and verified there.
   */
  private onPluginTrouble(what: 'port in use' | 'exited'): Promise<void> {
    this.portMove ??= this.movePluginPort(what).finally(() => {
      this.portMove = null;
    });
    return this.portMove;
  }

  private async movePluginPort(what: 'port in use' | 'exited'): Promise<void> {
    const port = this.deployed?.port ?? null;
    if (this.ready || this.stopped || port === null) return;
    if (what === 'exited' && (await portIsFree(port))) return;
    const moved = await this.pluginPort.moveFrom(port, () => !this.stopped && !this.ready);
    if (moved === null) return;
    this.report.warn(
      `the plugin could not listen on port ${port} (in use by another process): it gets PORT=${moved} instead, and its webhook URL is deployed with it`,
    );
    // The deploy sees the new port and restarts the plugin with it.
    await this.manifestWatch.queue('not redeployed with the new port', async () => {
      await this.deploy();
    });
  }

  /** The environment the manifest is read with: PORT is the plugin's when dev set it (--plugin-port, or a taken default moved). */
  private environment(): NodeJS.ProcessEnv {
    const port = this.pluginPort.port;
    return port !== undefined ? { ...this.options.env, PORT: String(port) } : this.options.env;
  }

  /** What the plugin process is started with now. */
  private launch() {
    const emu = this.link!.emulator;
    const deployed = this.deployed!;
    return {
      port: deployed.port,
      env: {
        PLUGSMITH_BASE_URL: emu.url,
        PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
        PLUGSMITH_TOKEN: emu.token,
        ...(emu.apiKey ? { PLUGSMITH_API_KEY: emu.apiKey } : {}),
        PLUGSMITH_WEBHOOK_SECRET: deployed.secret,
        PLUGSMITH_PLUGIN_ID: deployed.pluginId,
      },
      // dev's own credential and emulator: no look-up in the state file or the environment.
      output: { baseUrl: emu.url, pluginId: deployed.pluginId, adminToken: emu.adminToken },
    };
  }

  /** Deploys the manifest; a plugin already running is restarted when its port or its secret changed. */
  private async deploy(): Promise<DeployOutcome> {
    const link = this.link!;
    const emu = link.emulator;
    // The emulator is the developer's own: what the manifest drops goes, as with --allow-deletes.
    const outcome = await deployManifest(
      link.client,
      this.options.manifestPath,
      { identity: { storeId: emu.storeId, baseUrl: emu.url }, orgId: emu.orgId },
      { allowDeletes: true, environment: this.environment() },
    );
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
    const plugin = await link.client.plugins.get(outcome.pluginId!);
    const before = this.deployed;
    const webhookUrl = plugin.webhookUrl ?? null;
    const now: Deployed = {
      pluginId: outcome.pluginId!,
      secret: String(plugin.webhookSecret ?? ''),
      webhookUrl,
      port: this.pluginPort.port ?? portOf(webhookUrl),
    };
    this.deployed = now;
    this.verifier.verified = Boolean(plugin.webhookUrlIsVerified);
    if (!webhookUrl)
      this.report.warn(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
        'the manifest has no plugin.webhookUrl: events cannot reach the plugin (add e.g. "http://127.0.0.1:${PORT:-3000}/webhook")',
      );
    if (before && now.port !== before.port)
      await this.restartPlugin(`the webhook port changed to ${now.port}`);
    else if (before && before.secret !== '' && now.secret !== before.secret)
      await this.restartPlugin(SECRET_CHANGED);
    return outcome;
  }

  /** A saved manifest (or schema file): deploy, watch what it now reads, and start or verify the plugin as needed. */
  private redeploy(): Promise<void> {
    return this.manifestWatch.queue('not redeployed', async () => {
      const webhookUrlBefore = this.deployed?.webhookUrl ?? null;
      const outcome = await this.deploy();
      this.manifestWatch.watch([this.options.manifestPath, ...outcome.manifest.schemaFiles]);
      // A plugin waiting to be started again after a crash is started at once.
      if (!this.plugin.running) await this.plugin.restart(null);
      else if (
        !this.verifier.verified ||
        webhookUrlBefore !== this.deployed!.webhookUrl ||
        outcome.done.length
      )
        void this.verifier.check(false);
    });
  }

  /** Stops the running plugin and starts it again with the session's current port and secret. */
  private restartPlugin(why: string): Promise<void> {
    return this.plugin.restart(why);
  }
}
