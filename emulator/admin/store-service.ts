import { badRequest, detail, type ErrorDetail } from '../errors.js';
import type { BaseRecord, Collection, Store } from '../store/store.js';
import type { Db } from '../model.js';
import { nowIso } from '../store/ids.js';
import { newApiKey, newUserToken } from '../auth/credentials.js';
import { membershipId } from '../auth/principal.js';
import type { Seed } from '../seed.js';
import type { StoredRecord } from '#contract';
import { importShapeProblems } from './import-shapes.js';
import type { AdminDeps } from './common.js';

/** Replaces the whole store with an import, validated first (a refused one changes nothing), in one journal line; returns the counts. */
export async function importStore(
  services: AdminDeps,
  collections: Readonly<Record<string, StoredRecord[] | undefined>>,
): Promise<Record<string, number>> {
  const names = Object.values(services.db).map((c) => c.name);
  const problems: ErrorDetail[] = [];
  for (const [name, records = []] of Object.entries(collections)) {
    const seen = new Set<string>();
    records.forEach((r, i) => {
      if (seen.has(r.id))
        problems.push(
          detail(
            ['collections', name, String(i), 'id'],
            'duplicate',
            'a unique id',
            r.id,
            `${name} has two records with id ${r.id}`,
          ),
        );
      seen.add(r.id);
    });
  }
  if (problems.length)
    throw badRequest('Invalid export file: duplicate ids', problems.slice(0, 20));
  const shapes = importShapeProblems(collections);
  if (shapes.length)
    throw badRequest(
      `Invalid export file: ${shapes[0].message}${shapes.length > 1 ? ` (and ${shapes.length - 1} more)` : ''}`,
      shapes,
    );

  const contents: Record<string, BaseRecord[]> = Object.fromEntries(
    names.map((name) => [name, collections[name] ?? []]),
  );
  // Retries, live replies and streams of before end once the import is known storable, and before the swap.
  const swap = services.store.prepareReplace(contents);
  services.dispatcher.reset();
  await services.messaging.reset();
  await swap();
  await services.dispatcher.resume();
  return Object.fromEntries(names.map((name) => [name, contents[name].length]));
}

/** Replaces the store with `seed`'s records, after ending what runs, in one journal line (a crash leaves the old store or the new). */
export async function resetStore(services: AdminDeps, seed: Seed): Promise<void> {
  const swap = services.store.prepareReplace(seedContents(seed), 'reset');
  services.dispatcher.reset();
  await services.messaging.reset();
  await swap();
}

/** Writes a validated seed into an empty store as one journal line (a crash leaves it empty, seeded again at the next start). */
export async function seedStore(store: Store, db: Db, seed: Seed): Promise<void> {
  const contents = seedContents(seed);
  await store.atomically(() => {
    for (const [name, records] of Object.entries(contents)) {
      const collection = db[name as keyof Db] as Collection<BaseRecord>;
      for (const record of records) void collection.put(record);
    }
  });
}

/** The records a seed stands for, by collection (tokens and API keys stored as hashes). */
function seedContents(seed: Seed): Partial<Record<keyof Db, BaseRecord[]>> {
  const now = nowIso();
  const stamped = { createdAt: now, updatedAt: now };
  const memberships = seed.orgs.flatMap((o) =>
    o.members.map((m) => ({
      id: membershipId(o.id, m.userId),
      orgId: o.id,
      userId: m.userId,
      role: m.role,
      ...stamped,
    })),
  );
  const tokens = seed.tokens.map(
    (t) =>
      newUserToken({
        userId: t.userId,
        name: t.name ?? 'seed',
        orgId: t.orgId ?? null,
        token: t.token,
      }).record,
  );
  const apiKeys = (seed.apiKeys ?? []).map(
    (k) => newApiKey({ orgId: k.orgId, name: k.name, key: k.key }).record,
  );
  return {
    users: seed.users.map((u) => ({ id: u.id, name: u.name, ...stamped })),
    orgs: seed.orgs.map((o) => ({ id: o.id, name: o.name, ...stamped })),
    memberships,
    agents: (seed.agents ?? []).map((a) => ({
      id: a.id,
      orgId: a.orgId,
      name: a.name,
      ...stamped,
    })),
    characters: (seed.characters ?? []).map((c) => ({
      ...c,
      agentId: c.agentId ?? null,
      ...stamped,
    })),
    repositories: (seed.repositories ?? []).map((r) => ({
      id: r.id,
      orgId: r.orgId,
      name: r.name,
      description: r.description ?? '',
      ...stamped,
    })),
    tokens,
    apiKeys,
  };
}
