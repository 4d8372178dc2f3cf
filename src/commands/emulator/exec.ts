import { resolve } from 'node:path';
import type { CommandHandler } from '../types.js';
import { UserError, ExitWith, EXIT } from '../../errors.js';
import { note } from '../../ui/output.js';
import { listenForStop } from '../stop-signal.js';

interface ExecOptions {
  seed?: string;
  deploy?: boolean;
  manifest: string;
}

/** Runs the command with an in-memory emulator (--deploy: the manifest in it) in its environment; --json prints that and serves. */
const exec: CommandHandler<ExecOptions> = async ({ args, options, global, io }) => {
  const words = (args as unknown[]).flat().filter((w): w is string => typeof w === 'string');
  if (global.json && words.length) throw new UserError('--json prints the environment instead of running a command: drop the command, or --json', EXIT.USAGE);
  if (!global.json && !words.length) throw new UserError('which command? `plugsmith emulator exec -- npm test` (or --json to print the environment and keep the emulator running)', EXIT.USAGE);
  const manifestPath = resolve(options.manifest);
  const { loadManifest } = await import('../../manifest/load.js');
  // A missing or invalid manifest is told before anything starts.
  const manifest = options.deploy ? await loadManifest(manifestPath, process.env) : undefined;
  const { startEmulator, SeedError } = await import('../../../emulator/index.js');
  let emulator;
  try {
    emulator = await startEmulator({ inMemory: true, port: 0, messagingPort: 0, seed: options.seed ? resolve(options.seed) : undefined, log: () => undefined });
  } catch (error) {
    if (error instanceof SeedError) throw new UserError(`invalid seed: ${error.message}`, EXIT.VALIDATION);
    throw error;
  }
  try {
    let plugin: { id: string; webhookSecret: string } | undefined;
    if (manifest) {
      if (!emulator.token || !emulator.orgId) throw new UserError('--deploy needs a user token and an org in the seed', EXIT.VALIDATION);
      const { createClient } = await import('../../client/index.js');
      const { deployManifest } = await import('../../manifest/deploy.js');
      const client = createClient({ baseUrl: emulator.url, messagingUrl: emulator.messagingUrl, token: emulator.token, adminToken: emulator.adminToken, userAgent: 'plugsmith-exec' });
      try {
        // A throwaway store: nothing recorded; the webhook is verified by the command once it listens.
        const outcome = await deployManifest(client, manifestPath, { identity: { storeId: emulator.storeId, baseUrl: emulator.url }, orgId: emulator.orgId }, { allowDeletes: true, environment: process.env, manifest, record: false });
        const deployed = await client.plugins.get(outcome.pluginId!);
        plugin = { id: outcome.pluginId!, webhookSecret: String(deployed.webhookSecret ?? '') };
        note(io, global, `deployed ${manifest.plugin.name} (${plugin.id}) into an in-memory emulator at ${emulator.url}`);
      } finally {
        await client.close();
      }
    }
    const { execEnvironment, runCommand } = await import('../../dev/exec.js');
    const environment = execEnvironment(emulator, plugin);
    if (global.json) {
      const { stopped } = listenForStop();
      io.stdout.write(JSON.stringify(environment) + '\n');
      await stopped;
      return;
    }
    note(io, global, `emulator at ${emulator.url} (in memory); running: ${words.join(' ')}`);
    const code = await runCommand(words, { ...process.env, ...environment });
    if (code !== 0) throw new ExitWith(code);
  } finally {
    await emulator.close();
  }
};

export default exec;
