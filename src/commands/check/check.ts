import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunCommand, CommandInput, TargetFlags } from '../types.js';
import type { Plugin, PlatformClient } from '../../client/index.js';
import { clientFor, settingsFor } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { projectRootOf } from '../../config/emulators.js';
import { printResult } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { pluginOfProject, UnconfirmedStateError } from '../../dev/project-plugin.js';
import { loadManifest } from '../../manifest/load.js';
import { finishWhenStdoutCloses } from '../../ui/closed-stdout.js';
import { normalizeBaseUrl } from '../../config/url.js';
import { givenWebhookSecret } from '../webhook-secret.js';

interface CheckFlags {
  plugin?: string;
  secret?: string;
  deliveryTimeout: number;
  manifest: string;
}

/** The plugin this check is about, and a client of the platform that knows it; nulls when there is no platform to ask. */
async function findPlugin(
  input: CommandInput<CheckFlags & TargetFlags>,
): Promise<{ client: PlatformClient | null; plugin: Plugin | null; why: string | null }> {
  const o = input.options;
  const settings = await settingsFor(input);
  if (!settings.baseUrl || !settings.token) {
    // In a project whose emulator is not running, the secret and the side-effect checks are out of reach: say why.
    if (settings.noEmulator && !o.secret && projectRootOf())
      throw new UserError(settings.noEmulator, EXIT.NOT_FOUND);
    if (o.plugin)
      throw new UserError(
        '--plugin needs the platform: run `plugsmith login --local` (emulator) or set PLUGSMITH_BASE_URL and PLUGSMITH_TOKEN',
        EXIT.AUTH,
      );
    return {
      client: null,
      plugin: null,
      why: 'no platform configured: run `plugsmith login --local` against the emulator where the plugin is installed',
    };
  }
  const { client } = await clientFor(input, { token: true });
  try {
    const pluginId = await pluginOfProject(o.plugin, o.manifest, settings).catch(
      (error: unknown) => {
        if (o.plugin || error instanceof UnconfirmedStateError) throw error;
        return null;
      },
    );
    if (!pluginId)
      return {
        client,
        plugin: null,
        why: 'no plugin deployed from this project here: pass --plugin PLUGIN_ID (or run `plugsmith dev`)',
      };
    const plugin = await client.plugins.get(pluginId);
    // A URL named on the command line that is not this project's plugin's webhook is another webhook: its secret and
    // its side effects are not this plugin's (unless --plugin says it is).
    const url = input.args[0];
    if (url && !o.plugin && !sameWebhook(url, plugin.webhookUrl))
      return {
        client,
        plugin: null,
        why: `${url} is not the webhook of this project's plugin ${plugin.id} (${plugin.webhookUrl ?? 'none'}): pass --plugin PLUGIN_ID to check a plugin's side too`,
      };
    return { client, plugin, why: null };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/**
 * Whether two webhook URLs reach the same webhook: any loopback host, a trailing slash and a default port alike; the
 * query told apart (`?tenant=a` and `?tenant=b` may be two webhooks of one server).
 */
function sameWebhook(a: string, b: string | null | undefined): boolean {
  if (typeof b !== 'string' || normalizeBaseUrl(a) !== normalizeBaseUrl(b)) return false;
  return (URL.canParse(a) ? new URL(a).search : '') === (URL.canParse(b) ? new URL(b).search : '');
}

/** The manifest's webhookUrl (with its ${VAR} filled from the environment), when there is a manifest. */
async function manifestUrl(path: string): Promise<string | undefined> {
  if (!existsSync(resolve(path))) return undefined;
  return (await loadManifest(resolve(path))).plugin.webhookUrl ?? undefined;
}

/** Runs the readiness battery and prints the table (or --json); exit 1 when a required check fails. */
const check: RunCommand<CheckFlags & TargetFlags> = async (input) => {
  // Its exit code is the verdict: `check | head` in CI still fails when a check failed.
  finishWhenStdoutCloses();
  const o = input.options;
  const { client, plugin, why } = await findPlugin(input);
  try {
    // The deployed plugin's URL first: `plugsmith dev` may have given the manifest's ${PORT} another value than this shell has.
    const url = input.args[0] ?? plugin?.webhookUrl ?? (await manifestUrl(o.manifest));
    if (!url)
      throw new UserError(
        'which webhook? pass its URL (`plugsmith check http://127.0.0.1:3000/webhook`), or run this in a project whose plugsmith.json has a webhookUrl',
        EXIT.USAGE,
      );
    if (!/^https?:\/\/[^/]/.test(url))
      throw new UserError(`the webhook URL must be http(s)://…, not "${url}"`, EXIT.USAGE);
    const secret =
      (await givenWebhookSecret(input, o.secret)) ??
      (typeof plugin?.webhookSecret === 'string' ? plugin.webhookSecret : undefined);
    if (!secret) {
      throw new UserError(
        plugin
          ? `the platform did not show plugin ${plugin.id}'s webhook secret (only MEMBER and OWNER see it): pass --secret - (stdin) or set PLUGSMITH_WEBHOOK_SECRET`
          : "which secret? pass --secret - (the plugin's webhookSecret on stdin) or set PLUGSMITH_WEBHOOK_SECRET, or --plugin PLUGIN_ID to fetch it from the platform",
        EXIT.USAGE,
      );
    }
    const { runCheck, renderReport } = await import('../../check/index.js');
    let report: Awaited<ReturnType<typeof runCheck>>;
    try {
      report = await runCheck({
        url,
        secret,
        plugin,
        client,
        noPlatformReason: why ?? undefined,
        timeoutMs: o.deliveryTimeout * 1000,
      });
    } catch (error) {
      if (error instanceof TypeError && /webhook secret/.test(error.message))
        throw new UserError(`--secret: ${error.message}`, EXIT.USAGE);
      throw error;
    }
    printResult(input.io, input.global, report, () =>
      renderReport(
        report,
        styleFor(input.io, input.global),
        (input.io.stdout as { columns?: number }).columns ?? 0,
      ),
    );
    if (!report.ok) {
      const failed = report.checks.filter((c) => c.status === 'failed').map((c) => c.id);
      throw new UserError(
        `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')} (${input.global.json ? "each one's fix is in its `fix`" : "each one's fix is above"})`,
        EXIT.UNEXPECTED,
      );
    }
  } finally {
    await client?.close();
  }
};

export default check;
