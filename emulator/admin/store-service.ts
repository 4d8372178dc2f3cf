import { badRequest, detail, type ErrorDetail } from '../errors.js';
import type { BaseRecord, Store } from '../store/store.js';
import type { Db } from '../model.js';
import { nowIso } from '../store/ids.js';
import { newApiKey, newUserToken } from '../auth/credentials.js';
import { membershipId } from '../auth/principal.js';
import type { EmulatorContext } from '../context.js';
import type { Seed } from '../seed.js';
import type { StoredRecord } from '../../src/shared/contract/index.js';
import { importShapeProblems } from './import-shapes.js';

/** Replaces the whole store with an import, validated first (a refused one changes nothing), in one journal line; returns the counts. */
export async function importStore(
  services: EmulatorContext,
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
  services.events.reset();
  await services.messaging.reset();
  await swap();
  await services.events.resume();
  services.events.storeReplaced('import');
  return Object.fromEntries(names.map((name) => [name, contents[name].length]));
}

/** Empties the store and loads `seed` again, after ending what runs; a crash in between leaves an empty store, seeded at the next start. */
export async function resetStore(services: EmulatorContext, seed: Seed): Promise<void> {
  services.events.reset();
  await services.messaging.reset();
  await services.store.clear();
  await seedStore(services.store, services.db, seed);
  services.events.storeReplaced('reset');
}

/** Writes a validated seed into an empty store as one journal line (a crash leaves it empty, seeded again at the next start). */
export async function seedStore(store: Store, db: Db, seed: Seed): Promise<void> {
  const now = nowIso();
  await store.atomically(() => {
    for (const u of seed.users)
      void db.users.put({ id: u.id, name: u.name, createdAt: now, updatedAt: now });
    for (const o of seed.orgs) {
      void db.orgs.put({ id: o.id, name: o.name, createdAt: now, updatedAt: now });
      for (const m of o.members) {
        void db.memberships.put({
          id: membershipId(o.id, m.userId),
          orgId: o.id,
          userId: m.userId,
          role: m.role,
          createdAt: now,
          updatedAt: now,
        });
      }
    }
    for (const a of seed.agents ?? [])
      void db.agents.put({
        id: a.id,
        orgId: a.orgId,
        name: a.name,
        createdAt: now,
        updatedAt: now,
      });
    for (const c of seed.characters ?? [])
      void db.characters.put({ ...c, agentId: c.agentId ?? null, createdAt: now, updatedAt: now });
    for (const r of seed.repositories ?? []) {
      void db.repositories.put({
        id: r.id,
        orgId: r.orgId,
        name: r.name,
        description: r.description ?? '',
        createdAt: now,
        updatedAt: now,
      });
    }
    for (const t of seed.tokens)
      void db.tokens.put(
        newUserToken({
          userId: t.userId,
          name: t.name ?? 'seed',
          orgId: t.orgId ?? null,
          token: t.token,
        }).record,
      );
    for (const k of seed.apiKeys ?? [])
      void db.apiKeys.put(newApiKey({ orgId: k.orgId, name: k.name, key: k.key }).record);
  });
}
