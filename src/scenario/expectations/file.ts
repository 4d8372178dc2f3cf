import type { Static } from '@sinclair/typebox';
import type { RepositoryFileRecord } from '../../client/index.js';
import type { ExpectationContext, ExpectationFailure, RunContext } from '../context.js';
import type { FileExpectationSchema } from '../schema.js';
import { blamedDelivery, POLL_MS } from './watch.js';

// The `file` expectation: a file of the name added (`written`) or changed (`updated`) in the
// repository since the step began, by the plugin: not by the scenario's own addFile steps, nor by
// another plugin's installation. Installation tokens have no scope that adds files, so a plugin
// writes with a user token it holds; the emulator lists who added each file (`addedBy`), and a
// failure names them. Polled on either target: no platform streams a repository's files.

export type FileExpectation = Static<typeof FileExpectationSchema>;

/** How often the repository's files are read again while a file is awaited. */
const FILE_POLL_MS = POLL_MS * 4;

export async function checkFile(
  expectation: FileExpectation,
  context: ExpectationContext,
): Promise<ExpectationFailure | null> {
  const { client, pluginId, scope, deadline } = context;
  const repositoryId = expectation.repository;
  const written = expectation.written !== undefined;
  const name = expectation.written ?? expectation.updated ?? '';
  // On a remote platform: the instances this scenario installed (the admin API, which lists all, is the emulator's).
  const pluginInstances = new Set(
    context.remote
      ? [...context.installed.keys(), ...(await providersOf(context, repositoryId))]
      : (await client.emulator.instancesOf(pluginId)).map((i) => i.id),
  );
  const before = scope.filesBefore?.get(repositoryId);
  for (;;) {
    const files = before
      ? await allFiles(context, repositoryId)
      : (await client.repositories.files.list(repositoryId, { limit: 100 })).data;
    const named = files.filter((f) => f.fileName === name);
    const changedAt = (file: RepositoryFileRecord) =>
      written ? (file.addedAt ?? file.createdAt) : file.updatedAt;
    // A remote platform's clock is not this machine's: new (written) or changed (updated) since the step's snapshot.
    const changed = (file: RepositoryFileRecord) =>
      before
        ? written
          ? !before.has(file.id)
          : before.get(file.id) !== file.updatedAt
        : changedAt(file) >= scope.startedAt;
    const recent = named.filter(changed);
    const byThePlugin = (file: RepositoryFileRecord) =>
      writtenByThePlugin(file, pluginInstances, written, context, before);
    if (recent.some(byThePlugin)) return null;
    if (Date.now() >= deadline) {
      const seen = named.map((f) => {
        const when = written ? `added ${changedAt(f)}` : `last changed ${changedAt(f)}`;
        const early = changedAt(f) < scope.startedAt ? ', before the step began' : '';
        return `${name} (${f.id}) ${when}${early} by ${adderOf(f, pluginInstances, context)}`;
      });
      return context.failure(
        `${name} ${written ? 'written to' : 'updated in'} ${repositoryId} by the plugin (${pluginId})`,
        seen.length
          ? seen.join('; ')
          : `no file ${name} (files: ${files.map((f) => f.fileName).join(', ') || 'none'})`,
        await blamedDelivery(context.watch),
      );
    }
    await context.pause(FILE_POLL_MS);
  }
}

/**
 * On a remote platform, the files of each repository a step's file expectations name, before the step: its clock is not
 * this machine's, so what the plugin wrote is told by comparing with these rather than by time.
 */
export async function filesBefore(
  context: RunContext,
  repositories: string[],
): Promise<Map<string, Map<string, string>> | undefined> {
  if (repositories.length === 0) return undefined;
  const snapshot = new Map<string, Map<string, string>>();
  for (const repositoryId of new Set(repositories)) {
    const files = await allFiles(context, repositoryId);
    snapshot.set(repositoryId, new Map(files.map((f) => [f.id, f.updatedAt])));
  }
  return snapshot;
}

/** Every file of a repository (its pages walked). */
async function allFiles(
  context: RunContext,
  repositoryId: string,
): Promise<RepositoryFileRecord[]> {
  const files: RepositoryFileRecord[] = [];
  for (let page = 1; ; page++) {
    const got = await context.client.repositories.files.list(repositoryId, { limit: 100, page });
    files.push(...got.data);
    const pagination = got.pagination as { hasNext?: boolean } | undefined;
    if (!pagination?.hasNext || got.data.length === 0) return files;
  }
}

/**
 * Whether the plugin wrote the file: with its own installation's token, or a user token outside the scenario's own steps.
 * Who changed a file is not recorded: an update counts unless the scenario itself added the file during the step (its
 * upload changes it too).
 */
function writtenByThePlugin(
  file: RepositoryFileRecord,
  pluginInstances: Set<string>,
  written: boolean,
  context: ExpectationContext,
  before?: Map<string, string>,
): boolean {
  const addedNow = before
    ? !before.has(file.id)
    : (file.addedAt ?? file.createdAt) >= context.scope.startedAt;
  if (context.ownFiles.has(file.id) && (written || addedNow)) return false;
  if (!written) return true;
  const adder = file.addedBy;
  if (adder?.kind === 'instance') return pluginInstances.has(adder.instanceId);
  return true;
}

/** The plugin's data-provider instances on a repository, by the public API (a remote platform's file checks). */
async function providersOf(context: RunContext, repositoryId: string): Promise<string[]> {
  const page = await context.client.dataProviders
    .list(repositoryId, { limit: 100 })
    .catch(() => ({ data: [] as Array<{ id: string; pluginId?: string }> }));
  return page.data.filter((i) => i.pluginId === context.pluginId).map((i) => i.id);
}

/** Who added the file, in words. */
function adderOf(
  file: RepositoryFileRecord,
  pluginInstances: Set<string>,
  context: RunContext,
): string {
  const adder = file.addedBy;
  if (context.ownFiles.has(file.id)) {
    const user = adder?.kind === 'user' ? ` ${adder.userId}` : '';
    return `this scenario's addFile step (user${user}), not the plugin`;
  }
  if (!adder) return 'someone the platform does not name';
  if (adder.kind === 'user') return `user ${adder.userId}`;
  return pluginInstances.has(adder.instanceId)
    ? `the plugin's installation ${adder.instanceId}`
    : `installation ${adder.instanceId}, of another plugin`;
}
