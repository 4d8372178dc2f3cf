import { join } from 'node:path';

/** What the plugin needs to run; `configFromEnv` reads it from the environment. */
export interface PluginConfig {
  /** Port of the webhook server; 0 picks a free one (tests). */
  port: number;
  host: string;
  /** The plugin's webhookSecret (`whsec_…`), printed by `plugsmith plugins secret <pluginId>`. */
  webhookSecret: string;
  /** Management API of the platform (or the emulator) that installation tokens are used against. */
  platformUrl: string;
  /** Folder of the plugin's own state. */
  dataDir: string;
  /** JSON file of the installation tokens, written owner-only (0600). */
  tokenFile: string;
  /** Receives one line per event handled; silent when absent (tests). */
  log?: (line: string) => void;
}

/**
 * Reads the configuration from environment variables (the one place that does):
 * PORT, HOST, PLUGSMITH_WEBHOOK_SECRET, PLUGSMITH_BASE_URL, DATA_DIR, TOKEN_FILE.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PluginConfig {
  const webhookSecret = env.PLUGSMITH_WEBHOOK_SECRET;
  if (!webhookSecret) {
    throw new Error(
      'PLUGSMITH_WEBHOOK_SECRET is not set: deploy the plugin (`plugsmith deploy` prints its id), then run ' +
        '`PLUGSMITH_WEBHOOK_SECRET=$(plugsmith plugins secret <pluginId>) npm run dev`',
    );
  }
  const port = Number(env.PORT || {{port}});
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not "${env.PORT}"`);
  const dataDir = env.DATA_DIR || '.data';
  return {
    port,
    host: env.HOST || '127.0.0.1',
    webhookSecret,
    platformUrl: env.PLUGSMITH_BASE_URL || 'http://127.0.0.1:4010',
    dataDir,
    tokenFile: env.TOKEN_FILE || join(dataDir, 'tokens.json'),
  };
}
