import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlatformClient } from '../../client/index.js';
import { adminTokenFor } from '../../config/admin-token.js';
import { chooseEmulator, projectRootOf } from '../../config/emulators.js';
import type { Settings } from '../../config/profiles.js';
import { isLoopback } from '../../config/url.js';
import { EXIT, UserError } from '../../errors.js';
import type { Connection } from '../../mcp/server.js';
import { clientFor, settingsFor } from '../context.js';
import type { CommandInput, TargetFlags } from '../types.js';

/**
 * The project's emulator for one tool call, found afresh (as every command finds it: it may start after the server).
 * The settings must name this machine only: the token, the API key and the admin token go nowhere else.
 */
export async function connectToProject(input: CommandInput<TargetFlags>): Promise<Connection> {
  // A remote target is refused before anything else is asked of it (a token, say): the fix is to leave it, not to log in.
  const target = await settingsFor(input);
  if (target.baseUrl) refuseRemote(target);
  const { client, settings } = await clientFor(input, { token: true });
  try {
    refuseRemote(settings);
  } catch (error) {
    await client.close();
    throw error;
  }
  const choice = await chooseEmulator();
  const project = choice.state?.project ?? projectRootOf();
  const adminToken = await adminTokenFor(settings.baseUrl);
  const credentials = [
    settings.token,
    settings.apiKey,
    adminToken,
    ...(await webhookSecretsOf(client, settings.orgId)),
    await storageSecretOf(choice.state?.dataDir ?? null),
  ].filter((value): value is string => typeof value === 'string' && value !== '');
  return {
    client,
    settings,
    project,
    manifestPath: join(project ?? process.cwd(), 'plugsmith.json'),
    credentials,
  };
}

/**
 * Refuses settings that would send the emulator's credentials to another host: a remote profile or PLUGSMITH_BASE_URL,
 * and a management or messaging URL (set, or found in an emulator's state file) whose host is not named as this machine
 * (localhost, 127.x.x.x, [::1]). The host is judged by its name, never by what it resolves to, so a name that resolves
 * here today and elsewhere tomorrow is refused too.
 */
function refuseRemote(settings: Settings): void {
  if (!settings.local)
    throw new UserError(
      `plugsmith mcp talks only to a local emulator, and the settings point at ${settings.baseUrl}: unset PLUGSMITH_BASE_URL (or switch to a \`plugsmith login --local\` profile) and run \`plugsmith dev\` in the project`,
      EXIT.USAGE,
    );
  if (settings.baseUrl && !isLoopback(settings.baseUrl))
    throw new UserError(
      `plugsmith mcp sends the emulator's credentials only to this machine, and the management URL is ${settings.baseUrl}: pass --emulator with the emulator's folder or its http://127.0.0.1 URL`,
      EXIT.USAGE,
    );
  if (settings.messagingUrl && !isLoopback(settings.messagingUrl))
    throw new UserError(
      `plugsmith mcp sends the emulator's API key only to this machine, and the messaging URL is ${settings.messagingUrl}: unset PLUGSMITH_MESSAGING_URL (the emulator's own messaging URL is found without it) or set it to the emulator's http://127.0.0.1 URL`,
      EXIT.USAGE,
    );
}

/**
 * The webhook secrets of the org's plugins (whole, and their base64 part, which a plugin may print alone): scrubbed from
 * every answer with the credentials. Read through the management API; an emulator that does not answer has none to show.
 */
async function webhookSecretsOf(
  client: PlatformClient,
  orgId: string | undefined,
): Promise<string[]> {
  if (!orgId) return [];
  const page = await client.plugins.listByOrg(orgId, { limit: 100 }).catch(() => ({ data: [] }));
  return page.data.flatMap((plugin) => {
    const secret = plugin.webhookSecret;
    if (typeof secret !== 'string' || secret === '') return [];
    return [secret, secret.replace(/^whsec_/, '')];
  });
}

/** The file of a data dir holding that key (emulator/uploads/storage/secret-file.ts; src/ does not import the emulator). */
const STORAGE_SECRET_FILE = 'storage-secret';

/** The key of the emulator's signed storage URLs, kept in its data dir (none in memory): never shown, only scrubbed. */
async function storageSecretOf(dataDir: string | null): Promise<string | undefined> {
  if (!dataDir) return undefined;
  const text = await readFile(join(dataDir, STORAGE_SECRET_FILE), 'utf8').catch(() => '');
  return text.trim() || undefined;
}
