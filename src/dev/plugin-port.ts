import { connect } from 'node:net';
import { dirname } from 'node:path';
import { isLoopback } from '../config/url.js';
import { EXIT, UserError } from '../errors.js';
import { loadManifest } from '../manifest/load.js';
import { claimPort, type PortClaim, type PortHolder } from './port-claims.js';
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

/** The plugin's port as dev chose it, claimed (null: nothing to claim, a webhook that is not local). */
export interface PluginPortChoice {
  claim: PortClaim | null;
  /** The manifest's default was taken (or claimed) and dev gave the plugin another port. */
  moved?: { port: number; why: string };
  /** Whether the port may move again (the manifest's default, not one asked for). */
  movable: boolean;
}

/** How many ports after a taken one are tried before any free port will do. */
const NEARBY_PORTS = 10;

/** "port 3000 is claimed by another `plugsmith dev` in /x (pid 12, its claim FILE)", or what holds it. */
async function whyTaken(port: number, claim: PortClaim | { heldBy: PortHolder }): Promise<string> {
  if (!('heldBy' in claim)) return describeTakenPort(port);
  const { project, pid, file } = claim.heldBy;
  const where = project ? ` in ${project}` : '';
  // The claim's file, for a person who knows no such dev runs (a pid the system reused where it cannot tell).
  const about = [pid > 0 ? `pid ${pid}` : null, file ? `its claim ${file}` : null].filter(Boolean);
  const holder = about.length > 0 ? ` (${about.join(', ')})` : '';
  return `port ${port} is claimed by another \`plugsmith dev\`${where}${holder}`;
}

/** Claims `port` when no other dev claimed it and no process listens on it; the reason otherwise. */
async function claimFree(port: number, project: string): Promise<PortClaim | string> {
  // Without a writable config dir there are no claims: the port is only checked, as before claims existed.
  const claim = await claimPort(port, project).catch(() => ({ port, release: async () => {} }));
  if ('heldBy' in claim) return whyTaken(port, claim);
  if (await portIsFree(port)) return claim;
  await claim.release();
  return describeTakenPort(port);
}

/** A claimed free port near `taken` (the next ones first, so that a second project's plugin reads as 3001), else any. */
export async function claimPortNear(taken: number, project: string): Promise<PortClaim> {
  for (let port = taken + 1; port <= Math.min(taken + NEARBY_PORTS, 65535); port++) {
    const claim = await claimFree(port, project);
    if (typeof claim !== 'string') return claim;
  }
  return claimAnyFree(project);
}

/** A claimed free port, any (the system's choice). */
async function claimAnyFree(project: string): Promise<PortClaim> {
  for (;;) {
    const claim = await claimFree(await freePortNear(65535), project);
    if (typeof claim !== 'string') return claim;
  }
}

/**
 * A claimed free port for --plugin-port 0, once the manifest's webhook URL follows PORT: the platform must post where the
 * plugin listens, and a port fixed in the URL (or a tunnel's) would not be the one dev picks.
 */
async function anyPortFollowed(options: {
  manifestPath: string;
  env: NodeJS.ProcessEnv;
}): Promise<PortClaim> {
  const claim = await claimAnyFree(dirname(options.manifestPath));
  const manifest = await loadManifest(options.manifestPath, {
    ...options.env,
    PORT: String(claim.port),
  });
  const webhookUrl = manifest.plugin.webhookUrl;
  if (typeof webhookUrl !== 'string' || portOf(webhookUrl) === claim.port) return claim;
  await claim.release();
  throw new UserError(
    `--plugin-port 0 picks a free port, but plugin.webhookUrl (${webhookUrl}) does not follow PORT: write \${PORT} in it (e.g. "http://127.0.0.1:\${PORT:-3000}/webhook"), or pass the port it names`,
    EXIT.USAGE,
  );
}

/**
 * The plugin's port, claimed for this dev (port-claims.ts) before the plugin listens. One asked for (--plugin-port, or
 * PORT in the environment) that is taken or claimed is an error naming its holder; the manifest's default (`${PORT:-3000}`)
 * taken by another process or claimed by another dev (a second project's plugin) moves to a free port, as the emulator's
 * do: the plugin gets it as PORT and the webhook URL is deployed with it.
 */
export async function choosePluginPort(options: {
  manifestPath: string;
  env: NodeJS.ProcessEnv;
  pluginPort?: number;
}): Promise<PluginPortChoice> {
  const project = dirname(options.manifestPath);
  // --plugin-port 0: a free port, as the emulator's ports take 0; it never moves.
  if (options.pluginPort === 0) return { claim: await anyPortFollowed(options), movable: false };
  if (options.pluginPort !== undefined) {
    const claim = await claimFree(options.pluginPort, project);
    if (typeof claim !== 'string') return { claim, movable: false };
    throw new UserError(
      `the plugin's ${claim} (--plugin-port): stop that process, or pass another --plugin-port`,
      EXIT.CONFLICT,
    );
  }
  const manifest = await loadManifest(options.manifestPath, options.env);
  const webhookUrl = manifest.plugin.webhookUrl;
  const port = typeof webhookUrl === 'string' && isLoopback(webhookUrl) ? portOf(webhookUrl) : null;
  if (port === null) return { claim: null, movable: false };
  const portIsDefault = manifest.expandedVariables.some(
    (v) => v.variable === 'PORT' && v.fromDefault,
  );
  const claim = await claimFree(port, project);
  if (typeof claim !== 'string') return { claim, movable: portIsDefault };
  const taken = claim;
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
  const free = await claimPortNear(port, project);
  // The webhook URL must follow PORT, or the platform would post to the process holding the default.
  const moved = await loadManifest(options.manifestPath, {
    ...options.env,
    PORT: String(free.port),
  });
  const followsPort =
    typeof moved.plugin.webhookUrl === 'string' && portOf(moved.plugin.webhookUrl) === free.port;
  if (!followsPort) {
    await free.release();
    throw refusal(withoutPortVariable);
  }
  return { claim: free, movable: true, moved: { port: free.port, why: `the plugin's ${taken}` } };
}

/**
 * The plugin's port for one dev session: its claim, whether it may move (the manifest's default, not one asked for), and
 * the PORT dev gives the plugin (--plugin-port, or a taken default moved).
 */
export class PluginPort {
  private claim: PortClaim | null = null;
  private movable = false;
  private moved: number | undefined;

  constructor(
    /** --plugin-port (0: any free port). */
    private readonly asked: number | undefined,
    private readonly project: string,
  ) {}

  /** PORT for the plugin when dev sets it; undefined when the manifest's own is used. */
  get port(): number | undefined {
    // --plugin-port 0: the free port chosen for it.
    if (this.asked === 0) return this.claim?.port;
    return this.asked ?? this.moved;
  }

  /** Chooses and claims the port before the plugin starts (choosePluginPort); a default that moved, and why. */
  async choose(manifestPath: string, env: NodeJS.ProcessEnv): Promise<PluginPortChoice['moved']> {
    const choice = await choosePluginPort({ manifestPath, env, pluginPort: this.asked });
    this.claim = choice.claim;
    this.movable = choice.movable;
    this.moved = choice.moved?.port;
    return choice.moved;
  }

  /**
   * Moves a default port that another process took after dev claimed it to a free one near it, claimed, the old claim
   * released; null when the port may not move, or when `stillWanted()` says no once the new one is claimed.
   */
  async moveFrom(taken: number, stillWanted: () => boolean): Promise<number | null> {
    if (!this.movable) return null;
    const claim = await claimPortNear(taken, this.project);
    if (!stillWanted()) {
      await claim.release();
      return null;
    }
    const previous = this.claim;
    this.claim = claim;
    this.moved = claim.port;
    await previous?.release();
    return claim.port;
  }

  /** Gives the claim back (dev stops). */
  async release(): Promise<void> {
    await this.claim?.release();
  }
}
