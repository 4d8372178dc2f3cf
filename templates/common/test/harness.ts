import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type EmulatorOptions } from 'plugsmith/emulator';
import { createClient, type PlatformClient, type PluginCreate } from 'plugsmith/client';
import { startPlugin, type Plugin } from '../src/plugin.js';

/** The manifest's plugin section (plugsmith.json). */
export interface ManifestPlugin extends PluginCreate {
  events: string[];
  scopes: string[];
}

/** An in-memory emulator with this plugin deployed to it, running and verified. */
export interface Harness {
  emu: Emulator;
  /** Acts as the emulator's default user (OWNER of its org), with its messaging API key. */
  client: PlatformClient;
  manifest: { plugin: ManifestPlugin };
  pluginId: string;
  plugin: Plugin;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Faults the real platform produces, injected into every delivery but the challenge: each event
 * sent twice (same webhook-id), delays, events overtaking each other, lost attempts, and answers
 * lost after the plugin gave them (so the event comes again). The seed makes a failure reproducible:
 * a failing run prints its seed; pass it as `faultsSeed`. See
 * node_modules/plugsmith/docs/fault-injection.md.
 */
export const FAULTS: EmulatorOptions = {
  faults: 'duplicate=1,delay=0-100ms,reorder=0.3:300ms,drop=0.3,timeout-after-answer=0.3',
  faultsSeed: 7,
  // Retries come after tenths of the real waits, so lost attempts cost the test little time.
  delivery: { timeScale: 0.1 },
};

/**
 * Starts an in-memory emulator (with `options`, e.g. FAULTS), deploys plugsmith.json to it, starts
 * the plugin on a free port with a fresh data folder, points the plugin's webhook URL at it and
 * verifies it (the emulator sends WEBHOOK_CHALLENGE, signed with the plugin's secret).
 */
export async function startHarness(options: EmulatorOptions = {}): Promise<Harness> {
  const emu = await startEmulator(options);
  const client = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token!,
    apiKey: emu.apiKey!,
  });
  const manifest = JSON.parse(
    await readFile(new URL('../plugsmith.json', import.meta.url), 'utf8'),
  ) as Harness['manifest'];
  const dataDir = await mkdtemp(join(tmpdir(), 'plugin-test-'));
  let plugin: Plugin | undefined;
  try {
    // The manifest's webhook URL names a fixed port; the test's server listens on a free one,
    // so the URL is set once the server is up.
    const { webhookUrl: _fixedPort, ...fields } = manifest.plugin;
    const created = await client.plugins.createInOrg(emu.orgId!, fields);
    plugin = await startPlugin({
      port: 0,
      host: '127.0.0.1',
      webhookSecret: created.webhookSecret!,
      platformUrl: emu.url,
      dataDir,
      tokenFile: join(dataDir, 'tokens.json'),
    });
    await client.plugins.update(created.id, { webhookUrl: plugin.webhookUrl });
    const verification = await client.plugins.verifyWebhook(created.id);
    if (!verification.verified)
      throw new Error(`the webhook was not verified: ${verification.reason}`);
    const running = plugin;
    return {
      emu,
      client,
      manifest,
      pluginId: created.id,
      plugin: running,
      dataDir,
      async close() {
        await running.close();
        await client.close();
        await emu.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await plugin?.close();
    await client.close();
    await emu.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
