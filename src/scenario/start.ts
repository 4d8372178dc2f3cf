import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type PlatformClient } from '../client/index.js';
import { UserError, EXIT } from '../errors.js';
import { loadManifest } from '../manifest/load.js';
import type { PluginOutputLine } from '#contract/plugin-output';

// `plugsmith scenario run --start`: the one CI command, for a plugin in any language. An emulator
// in memory on free ports, and a `plugsmith dev` session against it (src/dev/session.ts: the
// manifest deployed, the plugin started with the manifest's dev command on a free port, its
// webhook verified, the manifest's installs made); stopped again after the run.
//
// A plugin that exits or crashes before it is up fails the start at once, and one that is not up within the bound fails it
// then: with the plugin's own output and why, as a PluginStartError (exit code 8), never after dev's patient waits.

/** How long the plugin may take to answer its challenge and be installed, by default (`--start-timeout`). */
export const DEFAULT_START_TIMEOUT_MS = 15_000;

/** How many of the plugin's last lines a start failure carries. */
const START_OUTPUT_LINES = 50;

export interface StartedForScenarios {
  client: PlatformClient;
  pluginId: string;
  stop(): Promise<void>;
}

/** The plugin did not come up: it exited, crashed, or did not answer (verified and installed) within the bound. Nothing ran. */
export class PluginStartError extends UserError {
  constructor(
    /** Why, in one sentence: "`node dist/main.js` exited with code 1 before it answered its webhook challenge". */
    readonly reason: string,
    /** What the plugin wrote, the newest lines (timestamped, scrubbed, escaped): untrusted text. */
    readonly pluginOutput: PluginOutputLine[],
    /** What to do about it. */
    readonly fix: string,
  ) {
    super(
      [
        `the plugin did not start, so no scenario was run: ${reason}`,
        pluginOutput.length
          ? `the plugin wrote (untrusted):\n${pluginOutput.map((l) => `  ${l.at.slice(11, 23)} ${l.stream.padEnd(6)} ${l.text}`).join('\n')}`
          : 'the plugin wrote nothing',
        `fix: ${fix}`,
      ].join('\n'),
      EXIT.PLUGIN_START,
    );
    this.name = 'PluginStartError';
  }
}

/** A free TCP port of the loopback interface. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A seed file named on the command line that is not there is "not found" (exit 4), as every such file is. */
async function seedFileExists(path: string): Promise<void> {
  const found = await stat(path).catch(() => null);
  if (!found?.isFile())
    throw new UserError(
      `--seed ${path}: ${found ? 'not a file' : 'no such file'} (a seed file is described in docs/emulator.md)`,
      EXIT.NOT_FOUND,
    );
}

/** What the session told while the plugin was coming up. */
interface StartWatch {
  /** The plugin's lines, as the capture kept them. */
  output: PluginOutputLine[];
  /** When the plugin last wrote a line. */
  lastLineAt: number;
  /** Set when the plugin exited or crashed: how. */
  stopped: string | null;
  /** Set when the manifest's installs failed: why. */
  installsFailed: string | null;
}

export interface StartOptions {
  manifestPath: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** How long the plugin may take to answer and be verified and installed (default {@link DEFAULT_START_TIMEOUT_MS}). */
  readyTimeoutMs?: number;
  /** A seed file for the emulator's store (absolute), instead of the default workspace. */
  seed?: string;
  /** The plugin's port for the first start (default: a free one). */
  pluginPort?: number;
}

/** How many times the plugin is started on a fresh port when another process took its port before it listened. */
const PORT_TAKEN_STARTS = 3;

/**
 * Starts the emulator and the plugin, and resolves once the plugin is verified and installed. The plugin's port is a free
 * one, but only until the plugin listens: another process (any outgoing connection takes a port of the same range) may
 * take it meanwhile. A plugin that could not listen because its port is in use is started again on another free port,
 * with a line saying so; any other failure is the plugin's.
 */
export async function startForScenarios(options: StartOptions): Promise<StartedForScenarios> {
  let pluginPort = options.pluginPort ?? (await freePort());
  for (let start = 1; ; start++) {
    try {
      return await startOnce(options, pluginPort);
    } catch (error) {
      if (start >= PORT_TAKEN_STARTS || !(await portTaken(error, pluginPort))) throw error;
      const taken = pluginPort;
      pluginPort = await freePort();
      options.log(
        `the plugin could not listen on port ${taken} (another process took it before the plugin listened): started again with PORT=${pluginPort}`,
      );
    }
  }
}

/**
 * Whether a start failed because another process holds the plugin's port: dev found it taken before starting the plugin
 * (a conflict), or the plugin said the address is in use; and the port is still held.
 */
async function portTaken(error: unknown, pluginPort: number): Promise<boolean> {
  const { PORT_IN_USE } = await import('../dev/plugin-runner.js');
  const { portIsFree } = await import('../dev/ports.js');
  const said =
    error instanceof PluginStartError
      ? error.pluginOutput.some((line) => PORT_IN_USE.test(line.text))
      : error instanceof UserError && error.exitCode === EXIT.CONFLICT;
  return said && !(await portIsFree(pluginPort));
}

async function startOnce(options: StartOptions, pluginPort: number): Promise<StartedForScenarios> {
  const timeoutMs = options.readyTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const env: NodeJS.ProcessEnv = { ...options.env, PORT: String(pluginPort) };
  const manifest = await loadManifest(options.manifestPath, env);
  // The plugin's own state (the installation tokens of PLUGIN_INSTALLED among it) belongs to this run's throwaway emulator:
  // it goes to a throwaway folder, removed with it, never to the project's .data/ (both templates read DATA_DIR and TOKEN_FILE).
  const dataDir = await mkdtemp(join(tmpdir(), 'plugsmith-start-'));
  env.DATA_DIR = dataDir;
  env.TOKEN_FILE = join(dataDir, 'tokens.json');
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  const command = manifest.dev?.command ?? 'npm run dev';
  const { startEmulator, SeedError } = await import('../../emulator/index.js');
  const emulator = await (async () => {
    if (options.seed) await seedFileExists(options.seed);
    return startEmulator({
      port: 0,
      messagingPort: 0,
      log: () => undefined,
      ...(options.seed ? { seed: options.seed } : {}),
    });
  })().catch(async (error: Error) => {
    await removeDataDir();
    throw error instanceof SeedError
      ? new UserError(`invalid seed: ${error.message}`, EXIT.VALIDATION)
      : error;
  });
  if (!emulator.token || !emulator.orgId || !emulator.apiKey) {
    await emulator.close();
    await removeDataDir();
    throw options.seed
      ? new UserError(
          `invalid seed: ${options.seed}: --start acts as the seed's first token (with an org) and uses its first API key: give it a token of a user who is a member of an org, and an API key (docs/emulator.md)`,
          EXIT.VALIDATION,
        )
      : new UserError('the in-memory emulator has no user token or API key', EXIT.UNEXPECTED);
  }
  const watch: StartWatch = { output: [], lastLineAt: 0, stopped: null, installsFailed: null };
  const { DevSession } = await import('../dev/session.js');
  const session = new DevSession(
    {
      manifestPath: options.manifestPath,
      command,
      env,
      pluginPort,
      verifyTimeoutMs: timeoutMs,
      installs: true,
      dataDir: '',
      target: {
        url: emulator.url,
        messagingUrl: emulator.messagingUrl,
        token: emulator.token,
        apiKey: emulator.apiKey,
        orgId: emulator.orgId,
        adminToken: emulator.adminToken,
        storeId: emulator.storeId,
      },
    },
    {
      // dev's own lines (its advice is for a terminal someone watches) are not the run's: only failures are kept.
      info: () => undefined,
      warn: (message) => {
        if (message.startsWith('installs failed: '))
          watch.installsFailed ??= message.slice('installs failed: '.length);
      },
      delivery: () => undefined,
      pluginOutput: (_line, _stream, kept) => {
        watch.output.push(kept);
        if (watch.output.length > START_OUTPUT_LINES) watch.output.shift();
        watch.lastLineAt = Date.now();
      },
      pluginStopped: (why) => {
        watch.stopped ??= why;
      },
    },
  );
  const client = createClient({
    baseUrl: emulator.url,
    messagingUrl: emulator.messagingUrl,
    token: emulator.token,
    apiKey: emulator.apiKey,
    adminToken: emulator.adminToken,
    userAgent: 'plugsmith-scenario',
  });
  const stop = async () => {
    await session.stop();
    await client.close();
    await emulator.close();
    await removeDataDir();
  };
  try {
    await session.start();
    const pluginId = session.pluginId!;
    options.log(
      `started an emulator at ${emulator.url} and the plugin (\`${command}\`, PORT=${pluginPort})`,
    );
    await ready(client, pluginId, manifest.installs.length, {
      timeoutMs,
      watch,
      command,
      pluginPort,
    });
    return { client, pluginId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Waits until the plugin's webhook is verified and its installs exist. A PluginStartError, with the plugin's output, as soon
 * as the plugin exits or crashes or its installs fail, and when it is not up within the bound.
 */
async function ready(
  client: PlatformClient,
  pluginId: string,
  installs: number,
  context: { timeoutMs: number; watch: StartWatch; command: string; pluginPort: number },
): Promise<void> {
  const { timeoutMs, watch, command } = context;
  const started = Date.now();
  const deadline = started + timeoutMs;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  let webhookUrl: string | null = null;
  for (;;) {
    if (watch.stopped) {
      await settled(watch);
      // "exited with code 1", or "crashed: Error: …" (its first line).
      const [what, ...detail] = watch.stopped.split('\n')[0].split(': ');
      throw new PluginStartError(
        `\`${command}\` ${what} ${seconds(Date.now() - started)} after it started, before its webhook answered its challenge${detail.length ? ` (${detail.join(': ')})` : ''}`,
        watch.output,
        `make \`${command}\` start and listen on PORT (the platform's challenge comes to ${webhookUrl ?? "the manifest's webhookUrl"}); what it wrote above says why it stopped`,
      );
    }
    if (watch.installsFailed) {
      await settled(watch);
      throw new PluginStartError(
        `its webhook was verified, but the manifest's installs failed: ${watch.installsFailed}`,
        watch.output,
        "make the manifest's installs name what the emulator holds (the default workspace, or the --seed file)",
      );
    }
    const plugin = await client.plugins.get(pluginId);
    webhookUrl = plugin.webhookUrl ?? null;
    if (plugin.webhookUrlIsVerified) {
      const instances = await client.emulator.instancesOf(pluginId);
      if (instances.length >= installs) return;
    }
    if (Date.now() > deadline) throw await notUp(client, pluginId, webhookUrl, context);
    await sleep(50);
  }
}

/** Why a plugin still running is not up at the bound: it does not listen, or it answers but is not verified, or not installed. */
async function notUp(
  client: PlatformClient,
  pluginId: string,
  webhookUrl: string | null,
  context: { timeoutMs: number; watch: StartWatch; command: string; pluginPort: number },
): Promise<PluginStartError> {
  const { timeoutMs, watch, command, pluginPort } = context;
  const bound = `${Math.round(timeoutMs / 100) / 10} s`;
  const longer = `; a plugin that needs longer to start: --start-timeout ${Math.max(30, Math.ceil((timeoutMs * 2) / 1000))}`;
  if (!webhookUrl)
    return new PluginStartError(
      `the manifest has no plugin.webhookUrl, so the plugin cannot be verified`,
      watch.output,
      'add one to plugsmith.json, e.g. "http://127.0.0.1:${PORT:-3000}/webhook"',
    );
  const { accepts } = await import('../dev/plugin-port.js');
  if (!(await accepts(webhookUrl)))
    return new PluginStartError(
      `\`${command}\` runs, but nothing answered at ${webhookUrl} within ${bound}`,
      watch.output,
      `make the plugin listen on PORT (${pluginPort} for this run) as the manifest's webhookUrl says${longer}`,
    );
  const verification = await client.plugins
    .verifyWebhook(pluginId)
    .catch((error: Error) => ({ verified: false, reason: error.message }));
  if (!verification.verified)
    return new PluginStartError(
      `\`${command}\` listens at ${webhookUrl}, but did not answer its webhook challenge within ${bound}: ${String(verification.reason ?? 'no reason given')}`,
      watch.output,
      `answer the WEBHOOK_CHALLENGE event with its challenge, verifying the signature with PLUGSMITH_WEBHOOK_SECRET (docs/webhooks.md)${longer}`,
    );
  return new PluginStartError(
    `its webhook was verified, but the manifest's installs were not all made within ${bound}`,
    watch.output,
    `check the manifest's installs${longer}`,
  );
}

/** Waits for the last lines of a plugin that stopped (its stack trace may come after the exit is seen): until it is quiet. */
async function settled(watch: StartWatch): Promise<void> {
  const until = Date.now() + 2000;
  // Lines still in the pipe when the exit was seen come first.
  await sleep(150);
  while (Date.now() < until && Date.now() - watch.lastLineAt < 250) await sleep(50);
}
