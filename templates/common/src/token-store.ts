import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PluginInstance } from 'plugsmith/webhooks';

/** One installation of the plugin, as PLUGIN_INSTALLED announced it. */
export interface Installation {
  instanceId: string;
  entityType: PluginInstance['entityType'];
  entityId: string;
  scopes: string[];
  /** The installation token: acts on the platform with the instance's scopes. Never log it. */
  accessToken: string;
  installedAt: string;
}

/**
 * Installation tokens in a JSON file that only its owner may read or write (mode 0600, in a
 * 0700 folder): anyone who reads a token can act as the plugin on that entity. Writes go to a
 * temporary file first and are renamed into place, so a crash never leaves half a file.
 */
export class TokenStore {
  private installations: Record<string, Installation> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** The installation of a plugin instance, if the plugin was told of it. */
  async get(instanceId: string): Promise<Installation | undefined> {
    return (await this.load())[instanceId];
  }

  /** Every installation, oldest first. */
  async list(): Promise<Installation[]> {
    return Object.values(await this.load());
  }

  /** Keeps (or replaces) an installation and its token. */
  async save(installation: Installation): Promise<void> {
    const all = await this.load();
    all[installation.instanceId] = installation;
    await this.persist(all);
  }

  /** Forgets an installation; its token was revoked by the platform anyway. */
  async remove(instanceId: string): Promise<boolean> {
    const all = await this.load();
    if (!(instanceId in all)) return false;
    delete all[instanceId];
    await this.persist(all);
    return true;
  }

  private async load(): Promise<Record<string, Installation>> {
    if (this.installations) return this.installations;
    try {
      this.installations = JSON.parse(await readFile(this.path, 'utf8')) as Record<
        string,
        Installation
      >;
      // A file copied in with looser permissions is tightened at once.
      await chmod(this.path, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.installations = {};
    }
    return this.installations;
  }

  private persist(all: Record<string, Installation>): Promise<void> {
    // One write at a time, each with the latest state: concurrent deliveries cannot interleave.
    const next = this.writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, this.path);
    });
    this.writing = next.catch(() => undefined);
    return next;
  }
}
