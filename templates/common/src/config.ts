import { join } from 'node:path';

/** What the plugin needs to run; `configFromEnv` reads it from the environment. */
export interface PluginConfig {
  /** Port of the webhook server; 0 picks a free one (tests). */
  port: number;
  host: string;
  /**
   * The plugin's webhookSecret (`whsec_…`), printed by `plugsmith plugins secret <pluginId>`; during
   * a secret rotation several (new and old), any of which may sign a delivery.
   */
  webhookSecret: string | string[];
  /** Management API of the platform (or the emulator) that installation tokens are used against. */
  platformUrl: string;
  /** Folder of the plugin's own state. */
  dataDir: string;
  /** JSON file of the installation tokens, written owner-only (0600). */
  tokenFile: string;
  /** A file to keep the shape of every event received in (field paths and types, never values), for `plugsmith parity check --event-shapes`. */
  eventShapes?: string;
  /** Receives one line per event handled; silent when absent (tests). */
  log?: (line: string) => void;
}

/**
 * Reads the configuration from environment variables (the one place that does):
 * PORT, HOST, PLUGSMITH_WEBHOOK_SECRET, PLUGSMITH_BASE_URL, DATA_DIR, TOKEN_FILE, PLUGSMITH_EVENT_SHAPES.
 * PLUGSMITH_WEBHOOK_SECRET may list several secrets, separated by commas or spaces
 * (`whsec_new,whsec_old`): after `plugsmith plugins secret rotate`, deploy with both, then drop the old one.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PluginConfig {
  const secrets = (env.PLUGSMITH_WEBHOOK_SECRET ?? '').split(/[\s,]+/).filter(Boolean);
  if (secrets.length === 0) {
    throw new Error(
      "PLUGSMITH_WEBHOOK_SECRET is not set: set it to the plugin's webhookSecret (`plugsmith plugins secret <pluginId>` prints it; " +
        '`plugsmith deploy` prints the id), with PORT and PLUGSMITH_BASE_URL beside it. `plugsmith dev` sets all three for you.',
    );
  }
  // A value that is no webhookSecret (`whsec_…`) would start a plugin that refuses every delivery; it is never printed.
  if (secrets.some((secret) => !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)))
    throw new Error(
      "PLUGSMITH_WEBHOOK_SECRET is not the plugin's webhookSecret: each secret is whsec_ and base64 (`plugsmith plugins secret <pluginId>` prints it)",
    );
  // The default port is filled in by `plugsmith init` (a string, so that this file is TypeScript before that too).
  const port = Number(env.PORT || '{{port}}');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not "${env.PORT}"`);
  const dataDir = env.DATA_DIR || '.data';
  return {
    port,
    host: env.HOST || '127.0.0.1',
    webhookSecret: secrets.length === 1 ? secrets[0] : secrets,
    platformUrl: env.PLUGSMITH_BASE_URL || 'http://127.0.0.1:4010',
    dataDir,
    tokenFile: env.TOKEN_FILE || join(dataDir, 'tokens.json'),
    eventShapes: env.PLUGSMITH_EVENT_SHAPES || undefined,
  };
}
