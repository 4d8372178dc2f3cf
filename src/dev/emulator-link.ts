import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type PlatformClient } from '../client/index.js';
import { env as environment } from '../config/env.js';
import type { DeliveryAttemptNotice } from '#contract';
import { followDeliveries } from './delivery-stream.js';
import {
  liveEmulator,
  useLocalEmulator,
  type LocalEmulator,
  type LocalEmulatorOptions,
} from './local-emulator.js';

/** Where the link tells what happens to the emulator. */
interface LinkReport {
  info(message: string): void;
  warn(message: string): void;
}

/** What the link follows deliveries with, and what it does when the emulator restarted elsewhere. */
export interface FollowOptions {
  pluginId: () => string;
  onAttempt: (notice: DeliveryAttemptNotice) => void;
  /** The project's emulator restarted (the link now talks to it); `moved`: its URLs or credentials changed. */
  onRestarted: (moved: boolean) => Promise<void>;
}

/**
 * The link to the emulator: the one used or started (useLocalEmulator), a client of it as it now is, its fault profile,
 * and the delivery stream, which follows an emulator of the project that restarted (its state file names another).
 */
export class EmulatorLink {
  private clientNow: PlatformClient;
  /** The client of a running emulator this link set faults on, to turn them off. */
  private faultsToClear: PlatformClient | null = null;
  private readonly closing = new AbortController();

  private constructor(
    readonly emulator: LocalEmulator,
    private readonly options: { manifestPath: string; target?: LocalEmulatorOptions['target'] },
    private readonly report: LinkReport,
  ) {
    this.clientNow = connect(emulator);
  }

  /** Uses the project's running emulator (or the target), else starts one; says which. */
  static async open(
    options: Omit<LocalEmulatorOptions, 'project'> & { manifestPath: string },
    report: LinkReport,
  ): Promise<EmulatorLink> {
    const emulator = await useLocalEmulator({
      ...options,
      project: dirname(options.manifestPath),
    });
    for (const line of emulator.notes) report.warn(line);
    report.info(
      emulator.owned
        ? `emulator started at ${emulator.url} (store ${emulator.dataDir ?? 'in memory'})`
        : `using the running emulator at ${emulator.url}`,
    );
    return new EmulatorLink(emulator, options, report);
  }

  /** The client of the emulator as it now is (its URLs and credentials). */
  get client(): PlatformClient {
    return this.clientNow;
  }

  private get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** An emulator started here has the profile already (read back); a running one gets it now, and loses it at close(). */
  async applyFaults(faults: { faults?: string; faultsSeed?: string }): Promise<void> {
    if (faults.faults === undefined) return;
    const resource = this.client.emulator.faults;
    const settings = this.emulator.owned
      ? await resource.get()
      : await resource.set(faults.faults, faults.faultsSeed);
    if (!this.emulator.owned) this.faultsToClear = this.client;
    this.report.warn(
      `fault injection on: ${settings.profile} (seed ${settings.seed}; reproduce with --faults-seed ${settings.seed})`,
    );
  }

  /** Follows the delivery stream until close(); resolves once it is open (or after 5 s: without it there is no live view, but dev goes on). */
  async follow(options: FollowOptions): Promise<void> {
    let opened: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    let first = true;
    let lost = false;
    void (async () => {
      while (!this.closed) {
        const onOpen = () => {
          if (lost)
            this.report.info(
              `the emulator answers again at ${this.emulator.url}; delivery stream reconnected`,
            );
          else if (!first) this.report.info('delivery stream reconnected');
          first = false;
          lost = false;
          opened();
        };
        const problem = await followDeliveries(
          this.client,
          { pluginId: options.pluginId() },
          options.onAttempt,
          { signal: this.closing.signal, onOpen },
        ).then(
          () => 'the stream ended',
          (error: Error) => error.message,
        );
        if (this.closed) return;
        const followed = await this.followRestarted(options).catch((error: Error) => {
          this.report.warn(`could not follow the restarted emulator: ${error.message}`);
          return false;
        });
        if (!followed && !lost) {
          lost = true;
          this.report.warn(
            `lost the emulator at ${this.emulator.url} (${problem}); waiting for it to come back` +
              (this.emulator.owned || this.options.target
                ? ''
                : ` (\`plugsmith emulator start\` in ${dirname(this.options.manifestPath)} starts it again)`),
          );
        }
        await sleep(lost ? 1000 : 250);
      }
    })();
    await Promise.race([open, sleep(5000, undefined, { ref: false })]);
  }

  /** Switches to the emulator the project's state file names when it is another (a restart); false if none. */
  private async followRestarted(options: FollowOptions): Promise<boolean> {
    const emu = this.emulator;
    if (emu.owned || this.options.target || this.closed) return false;
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
    const previous = this.clientNow;
    this.clientNow = connect(emu);
    await previous.close().catch(() => undefined);
    await options.onRestarted(moved);
    return true;
  }

  /** Ends the stream; turns off faults it set; closes the client, and the emulator if it started it. */
  async close(): Promise<void> {
    this.closing.abort();
    // Before the client closes. After a followed restart it is the old, closed client: the new emulator's faults are not ours.
    await this.faultsToClear?.emulator.faults.set('off').catch(() => undefined);
    await this.clientNow.close();
    await this.emulator.close();
  }

  /** Ends the delivery stream (before the plugin stops, so its last attempts are not reported as losses). */
  stopFollowing(): void {
    this.closing.abort();
  }
}

function connect(emulator: LocalEmulator): PlatformClient {
  return createClient({
    baseUrl: emulator.url,
    messagingUrl: emulator.messagingUrl,
    token: emulator.token,
    apiKey: emulator.apiKey ?? undefined,
    adminToken: emulator.adminToken,
    userAgent: 'plugsmith-dev',
  });
}
