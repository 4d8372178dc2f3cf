import { watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';

const DEBOUNCE_MS = 250;

/**
 * Watches the manifest and the schema files it reads, and runs the deploys one after another. A save calls `onChange`
 * (debounced); folders are watched, not files, as editors save by renaming a new file over the old. Deploys, whatever
 * asked for them (a save, an emulator that restarted), go through `queue`: one at a time, in order.
 */
export class ManifestWatch {
  private files = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  private debounce: NodeJS.Timeout | null = null;
  private deploying: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly onChange: () => void,
    private readonly warn: (message: string) => void,
  ) {}

  /** Watches these files from now on (the folders of files no longer read are let go). */
  watch(files: string[]): void {
    if (this.closed) return;
    this.files = new Set(files);
    const folders = new Set(files.map((file) => dirname(file)));
    for (const [folder, watcher] of this.watchers) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, (_event, name) => {
          if (name !== null && !this.files.has(join(folder, name))) return;
          if (this.debounce) clearTimeout(this.debounce);
          this.debounce = setTimeout(() => this.onChange(), DEBOUNCE_MS);
        });
        watcher.on('error', (error) => this.warn(`cannot watch ${folder}: ${error.message}`));
        this.watchers.set(folder, watcher);
      } catch (error) {
        this.warn(`cannot watch ${folder}: ${(error as Error).message}`);
      }
    }
  }

  /** Runs `deploy` once the deploy under way is done; its failure is told after `failure` (the loop goes on). */
  queue(failure: string, deploy: () => Promise<void>): Promise<void> {
    this.deploying = this.deploying.then(async () => {
      if (this.closed) return;
      try {
        await deploy();
      } catch (error) {
        this.warn(`${failure}: ${(error as Error).message}`);
      }
    });
    return this.deploying;
  }

  /** Stops watching; resolves once the deploy under way is done (none starts after). */
  async close(): Promise<void> {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    if (this.debounce) clearTimeout(this.debounce);
    await this.deploying;
  }
}
