import { badRequest, detail, type ErrorDetail } from '../errors.js';
import type { BaseRecord, Store } from '../store/store.js';
import type { Db } from '../model.js';
import { nowIso } from '../store/ids.js';
import { newApiKey, newUserToken } from '../auth/credentials.js';
import { membershipId } from '../auth/principal.js';
import type { EmulatorContext } from '../context.js';
import type { Seed } from '../seed.js';
import type { StoredRecord } from '../../src/contract/index.js';
import { importShapeProblems } from './import-shapes.js';

/**
 * Replaces the whole store with `collections` (an import): everything is validated first
 * (unique ids, each record's shape, every record serializable), so a refused import changes nothing, in memory or on
 * disk. Then pending retries, live replies and streams of before are ended, the store is swapped
 * in one step (one journal line: a crash leaves the old contents or the new), and pending deliveries
 * of the import are scheduled.
 * Returns how many records each collection now holds.
 */
export async function importStore(services: EmulatorContext, collections: Readonly<Record<string, StoredRecord[] | undefined>>): Promise<Record<string, number>> {
  const names = Object.values(services.db).map((c) => c.name);
  const problems: ErrorDetail[] = [];
  for (const [name, records = []] of Object.entries(collections)) {
    const seen = new Set<string>();
    records.forEach((r, i) => {
      if (seen.has(r.id)) problems.push(detail(['collections', name, String(i), 'id'], 'duplicate', 'a unique id', r.id, `${name} has two records with id ${r.id}`));
      seen.add(r.id);
    });
  }
  if (problems.length) throw badRequest('Invalid export file: duplicate ids', problems.slice(0, 20));
  const shapes = importShapeProblems(collections);
  if (shapes.length) throw badRequest(`Invalid export file: ${shapes[0].message}${shapes.length > 1 ? ` (and ${shapes.length - 1} more)` : ''}`, shapes);

  const contents: Record<string, BaseRecord[]> = {};
  for (const name of names) contents[name] = collections[name] ?? [];
  // Nothing of before may outlive the import: pending retries, live replies, streams. Ended only
  // once the import is known to be storable, but before the swap, so none writes into the new state.
  const swap = services.store.prepareReplace(contents);
  services.events.reset();
  await services.messaging.reset();
  await swap();
  await services.events.resume();
  services.events.storeReplaced('import');
  return Object.fromEntries(names.map((name) => [name, contents[name].length]));
}

/**
 * Empties the store and loads `seed` again (the admin API's reset): live replies, streams and
 * pending retries end first. A crash in between leaves an empty store, which the next start
 * seeds again.
 */
export async function resetStore(services: EmulatorContext, seed: Seed): Promise<void> {
  services.events.reset();
  await services.messaging.reset();
  await services.store.clear();
  await seedStore(services.store, services.db, seed);
  services.events.storeReplaced('reset');
}

/**
 * Writes a validated seed into an empty store, all of it in one journal line: a crash while
 * seeding leaves the store empty, and the next start seeds it again.
 */
export async function seedStore(store: Store, db: Db, seed: Seed): Promise<void> {
  const now = nowIso();
  await store.atomically(() => {
    for (const u of seed.users) void db.users.put({ id: u.id, name: u.name, createdAt: now, updatedAt: now });
    for (const o of seed.orgs) {
      void db.orgs.put({ id: o.id, name: o.name, createdAt: now, updatedAt: now });
      for (const m of o.members) {
        void db.memberships.put({ id: membershipId(o.id, m.userId), orgId: o.id, userId: m.userId, role: m.role, createdAt: now, updatedAt: now });
      }
    }
    for (const a of seed.agents ?? []) void db.agents.put({ id: a.id, orgId: a.orgId, name: a.name, createdAt: now, updatedAt: now });
    for (const c of seed.characters ?? []) void db.characters.put({ ...c, agentId: c.agentId ?? null, createdAt: now, updatedAt: now });
    for (const r of seed.repositories ?? []) {
      void db.repositories.put({ id: r.id, orgId: r.orgId, name: r.name, description: r.description ?? '', createdAt: now, updatedAt: now });
    }
    for (const t of seed.tokens) void db.tokens.put(newUserToken({ userId: t.userId, name: t.name ?? 'seed', orgId: t.orgId ?? null, token: t.token }).record);
    for (const k of seed.apiKeys ?? []) void db.apiKeys.put(newApiKey({ orgId: k.orgId, name: k.name, key: k.key }).record);
  });
}
