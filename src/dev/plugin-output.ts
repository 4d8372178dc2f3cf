import { createClient, type PlatformClient } from '../client/index.js';
import { listEmulators } from '../config/emulators.js';
import { env as environment } from '../config/env.js';
import { normalizeBaseUrl } from '../config/url.js';
import {
  OUTPUT_MAX_BATCH,
  OUTPUT_MAX_LINES,
  OutputRing,
  SecretScrubber,
  cleanLine,
  type OutputLine,
  type OutputStream,
} from '../shared/plugin-output.js';

/** Posts begin at least this far apart: a burst of lines is a few requests, and a line waits at most this long for its post. */
const MIN_POST_GAP_MS = 25;

/** Where a capture posts its lines: the emulator's admin API, for one plugin. */
export interface OutputTarget {
  baseUrl: string;
  pluginId: string;
  /** The admin credential; when absent it is looked up (PLUGSMITH_ADMIN_TOKEN, else the state file of the emulator at baseUrl). */
  adminToken?: string;
}

/** The environment variables of a plugin process that hold credentials: their values are scrubbed from its output. */
export const SECRET_VARIABLES = [
  'PLUGSMITH_TOKEN',
  'PLUGSMITH_API_KEY',
  'PLUGSMITH_WEBHOOK_SECRET',
  'PLUGSMITH_ADMIN_TOKEN',
];

/**
 * The output of the process plugsmith runs as the plugin: each line timestamped, cut, scrubbed and escaped, kept in a bounded
 * ring (the newest lines, for this process's own readers), and posted in batches to the emulator, which links lines to delivery
 * attempts. A batch the emulator refuses or cannot take is dropped (its lines stay in the ring): the plugin's run never waits on it.
 */
export class PluginOutputCapture {
  readonly ring = new OutputRing();
  private readonly scrubber: SecretScrubber;
  private pending: OutputLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the last post began: posts are at least MIN_POST_GAP_MS apart. */
  private lastPostAt = 0;
  private posting: Promise<void> | null = null;
  private client: PlatformClient | null = null;
  private adminToken: string | undefined;
  private closed = false;
  /** Lines that could not be posted (dropped batches, or pending lines past the bound while the emulator was slow). */
  lost = 0;

  constructor(
    private readonly target: OutputTarget | null,
    secrets: Iterable<string | null | undefined>,
  ) {
    this.scrubber = new SecretScrubber(secrets);
    this.adminToken = target?.adminToken;
  }

  /** A capture for a plugin process started with this environment (PLUGSMITH_BASE_URL and PLUGSMITH_PLUGIN_ID name the target). */
  static forEnvironment(env: NodeJS.ProcessEnv): PluginOutputCapture {
    const baseUrl = env.PLUGSMITH_BASE_URL;
    const pluginId = env.PLUGSMITH_PLUGIN_ID;
    const target = baseUrl && pluginId ? { baseUrl, pluginId } : null;
    return new PluginOutputCapture(
      target,
      SECRET_VARIABLES.map((name) => env[name]),
    );
  }

  /** Takes one raw line the plugin wrote; returns it as kept (the text scrubbed and escaped). */
  line(raw: string, stream: OutputStream): OutputLine {
    const line: OutputLine = {
      at: new Date().toISOString(),
      stream,
      text: cleanLine(raw, this.scrubber),
    };
    this.ring.push(line);
    if (!this.target || this.closed) return line;
    this.pending.push(line);
    if (this.pending.length > OUTPUT_MAX_LINES) {
      // The emulator is slower than the plugin writes: keep the newest, as the ring does.
      const excess = this.pending.length - OUTPUT_MAX_LINES;
      this.pending.splice(0, excess);
      this.lost += excess;
    }
    this.schedule();
    return line;
  }

  /** Posts what is pending now; resolves once every line taken so far was posted (or dropped). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.posting || this.pending.length > 0) {
      if (this.posting) await this.posting;
      else this.post();
    }
  }

  /** Posts what is pending and closes the connection. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.client?.close().catch(() => undefined);
    this.client = null;
  }

  /**
   * Posts the lines read so far: at once (after this turn of the event loop) when the last post began MIN_POST_GAP_MS ago or
   * more, else when that gap is over, so a plugin that writes fast costs at most one request per gap and a lone line is not
   * held back. One post is in flight at a time; the lines read meanwhile form the next batch.
   */
  private schedule(): void {
    if (this.timer || this.posting) return;
    const wait = Math.max(0, this.lastPostAt + MIN_POST_GAP_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, wait);
    this.timer.unref();
  }

  /** One batch at a time; the next is scheduled when it is done. */
  private post(): void {
    if (this.posting || this.pending.length === 0 || !this.target) return;
    const batch = this.pending.splice(0, OUTPUT_MAX_BATCH);
    this.lastPostAt = Date.now();
    this.posting = this.send(batch)
      .catch(() => {
        this.lost += batch.length;
      })
      .finally(() => {
        this.posting = null;
        if (this.pending.length > 0 && !this.closed) this.schedule();
      });
  }

  private async send(batch: OutputLine[]): Promise<void> {
    const target = this.target!;
    if (!this.client) {
      this.adminToken ??= await adminTokenOf(target.baseUrl);
      this.client = createClient({
        baseUrl: target.baseUrl,
        adminToken: this.adminToken,
        userAgent: 'plugsmith-dev',
        retries: 0,
        timeoutMs: 5000,
      });
    }
    try {
      await this.client.emulator.pluginOutput.post(target.pluginId, batch);
    } catch (error) {
      // A restarted emulator has a new admin credential: look it up again for the next batch.
      if ((error as { status?: number }).status === 401) {
        this.adminToken = target.adminToken;
        const stale = this.client;
        this.client = null;
        await stale.close().catch(() => undefined);
      }
      throw error;
    }
  }
}

/** The admin credential of the emulator at `baseUrl`: PLUGSMITH_ADMIN_TOKEN, else the state file of the emulator started there. */
async function adminTokenOf(baseUrl: string): Promise<string | undefined> {
  const fromEnvironment = environment.adminToken();
  if (fromEnvironment) return fromEnvironment;
  const wanted = normalizeBaseUrl(baseUrl);
  const running = await listEmulators();
  return running.find((state) => normalizeBaseUrl(state.url) === wanted)?.adminToken;
}
