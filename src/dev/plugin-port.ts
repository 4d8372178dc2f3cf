import { connect } from 'node:net';
import { isLoopback } from '../config/url.js';
import { EXIT, UserError } from '../errors.js';
import { loadManifest } from '../manifest/load.js';
import { describeTakenPort, freePortNear, portIsFree } from './ports.js';

/** The port of a URL (its scheme's default when it names none); null without a URL. */
export function portOf(url: string | null): number | null {
  if (!url) return null;
  const parsed = new URL(url);
  return parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
}

/** Whether something accepts TCP connections at the URL's host and port. */
export function accepts(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({
      host: new URL(url).hostname.replace(/^\[|\]$/g, ''),
      port: portOf(url)!,
    });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

/** The plugin's port as dev chose it: `moved` when the manifest's default was taken and dev gave the plugin another. */
export interface PluginPortChoice {
  moved?: { port: number; why: string };
}

/**
 * The plugin's port must be free when dev starts. One asked for (--plugin-port, or PORT in the environment) that is taken is
 * an error naming its holder; the manifest's default (`${PORT:-3000}`) taken by another process (a second project's plugin)
 * moves to a free port, as the emulator's do: the plugin gets it as PORT and the webhook URL is deployed with it.
 */
export async function choosePluginPort(options: {
  manifestPath: string;
  env: NodeJS.ProcessEnv;
  pluginPort?: number;
}): Promise<PluginPortChoice> {
  if (options.pluginPort !== undefined) {
    if (await portIsFree(options.pluginPort)) return {};
    throw new UserError(
      `the plugin's ${await describeTakenPort(options.pluginPort)} (--plugin-port): stop that process, or pass another --plugin-port`,
      EXIT.CONFLICT,
    );
  }
  const manifest = await loadManifest(options.manifestPath, options.env);
  const webhookUrl = manifest.plugin.webhookUrl;
  if (typeof webhookUrl !== 'string' || !isLoopback(webhookUrl)) return {};
  const port = portOf(webhookUrl);
  if (port === null) return {};
  const portIsDefault = manifest.expandedVariables.some(
    (v) => v.variable === 'PORT' && v.fromDefault,
  );
  if (await portIsFree(port)) return {};
  const taken = await describeTakenPort(port);
  const refusal = (why: string) =>
    new UserError(
      `the plugin's ${taken}: stop that process (another \`plugsmith dev\`?), or give the plugin another port with --plugin-port${why}`,
      EXIT.CONFLICT,
    );
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
  const withoutPortVariable = ' (with ${PORT} in plugin.webhookUrl)';
  if (!portIsDefault)
    throw refusal(
      manifest.expandedVariables.some((v) => v.variable === 'PORT')
        ? ' (PORT is set in the environment)'
        : withoutPortVariable,
    );
  const free = await freePortNear(port);
  // The webhook URL must follow PORT, or the platform would post to the process holding the default.
  const moved = await loadManifest(options.manifestPath, { ...options.env, PORT: String(free) });
  const followsPort =
    typeof moved.plugin.webhookUrl === 'string' && portOf(moved.plugin.webhookUrl) === free;
  if (!followsPort) throw refusal(withoutPortVariable);
  return { moved: { port: free, why: `the plugin's ${taken}` } };
}
