import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One install or uninstall of the plugin on an app. */
export interface HistoryEntry {
  change: 'installed' | 'uninstalled';
  instanceId: string;
  appId: string;
  orgId: string;
  /** When the platform says it happened. */
  at: string;
  /** The delivery's event id: a retried delivery is recorded once. */
  eventId: string;
}

/** The installs and uninstalls of the plugin, oldest first, in a JSON file that survives restarts. */
export class InstallHistory {
  private entries: HistoryEntry[] | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** Every recorded change, oldest first. */
  async list(): Promise<HistoryEntry[]> {
    if (!this.entries) {
      try {
        this.entries = JSON.parse(await readFile(this.path, 'utf8')) as HistoryEntry[];
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        this.entries = [];
      }
    }
    return this.entries;
  }

  /** Appends a change unless its event was recorded already. */
  async record(entry: HistoryEntry): Promise<void> {
    const entries = await this.list();
    if (entries.some((e) => e.eventId === entry.eventId)) return;
    entries.push(entry);
    const next = this.writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(entries, null, 2) + '\n');
      await rename(temporary, this.path);
    });
    this.writing = next.catch(() => undefined);
    await next;
  }
}
