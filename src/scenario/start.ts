import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type PlatformClient } from '../client/index.js';
import { UserError, EXIT } from '../errors.js';
import { loadManifest } from '../manifest/load.js';

// `plugsmith scenario run --start`: the one CI command, for a plugin in any language. An emulator
// in memory on free ports, and a `plugsmith dev` session against it (src/dev/session.ts: the
// manifest deployed, the plugin started with the manifest's dev command on a free port, its
// webhook verified, the manifest's installs made); stopped again after the run.

export interface StartedForScenarios {
  client: PlatformClient;
  pluginId: string;
  stop(): Promise<void>;
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

/** Starts the emulator and the plugin, and resolves once the plugin is verified and installed. */
export async function startForScenarios(options: {
  manifestPath: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** How long the plugin may take to answer and be verified (default 60 s). */
  readyTimeoutMs?: number;
}): Promise<StartedForScenarios> {
  const pluginPort = await freePort();
  const env = { ...options.env, PORT: String(pluginPort) };
  const manifest = await loadManifest(options.manifestPath, env);
  const command = manifest.dev?.command ?? 'npm run dev';
  const { startEmulator } = await import('../../emulator/index.js');
  const emulator = await startEmulator({ port: 0, messagingPort: 0, log: () => undefined });
  if (!emulator.token || !emulator.orgId || !emulator.apiKey) {
    await emulator.close();
    throw new UserError('the in-memory emulator has no user token or API key', EXIT.UNEXPECTED);
  }
  const output: string[] = [];
  const { DevSession } = await import('../dev/session.js');
  const session = new DevSession(
    {
      manifestPath: options.manifestPath,
      command,
      env,
      pluginPort,
      verifyTimeoutMs: options.readyTimeoutMs ?? 60_000,
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
      info: (message) => output.push(message),
      warn: (message) => output.push(message),
      delivery: () => undefined,
      pluginOutput: (line) => output.push(`plugin: ${line}`),
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
  };
  try {
    await session.start();
    const pluginId = session.pluginId!;
    options.log(
      `started an emulator at ${emulator.url} and the plugin (\`${command}\`, PORT=${pluginPort})`,
    );
    await ready(
      client,
      pluginId,
      manifest.installs.length,
      options.readyTimeoutMs ?? 60_000,
      output,
    );
    return { client, pluginId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until the plugin's webhook is verified and its installs exist; a usage error with the plugin's output when it is not in time. */
async function ready(
  client: PlatformClient,
  pluginId: string,
  installs: number,
  timeoutMs: number,
  output: string[],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const plugin = await client.plugins.get(pluginId);
    if (plugin.webhookUrlIsVerified) {
      const instances = await client.emulator.instancesOf(pluginId);
      if (instances.length >= installs) return;
    }
    if (Date.now() > deadline)
      throw new UserError(
        `the plugin was not ready (verified and installed) within ${Math.round(timeoutMs / 1000)} s:\n${output.slice(-30).join('\n')}`,
        EXIT.UNEXPECTED,
      );
    await sleep(50);
  }
}
