import { badRequest, detail, type ErrorDetail } from '../errors.js';
import type { BaseRecord } from '../store/store.js';
import type { Services } from '../services.js';
import { applySeed, type Seed } from '../seed.js';

/**
 * Replaces the whole store with `collections` (an import): everything is validated first
 * (unique ids, every record serializable), so a refused import changes nothing, in memory or on
 * disk. Then pending retries, live replies and streams of before are ended, the store is swapped
 * in one step (one new snapshot), and pending deliveries of the import are scheduled.
 * Returns how many records each collection now holds.
 */
export async function importStore(services: Services, collections: Record<string, BaseRecord[]>): Promise<Record<string, number>> {
  const names = Object.values(services.db).map((c) => c.name);
  const problems: ErrorDetail[] = [];
  for (const [name, records] of Object.entries(collections)) {
    const seen = new Set<string>();
    records.forEach((r, i) => {
      if (seen.has(r.id)) problems.push(detail(['collections', name, String(i), 'id'], 'duplicate', 'a unique id', r.id, `${name} has two records with id ${r.id}`));
      seen.add(r.id);
    });
  }
  if (problems.length) throw badRequest('Invalid export file: duplicate ids', problems.slice(0, 20));

  const contents: Record<string, BaseRecord[]> = {};
  for (const name of names) contents[name] = collections[name] ?? [];
  // Nothing of before may outlive the import: pending retries, live replies, streams. Ended only
  // once the import is known to be storable, but before the swap, so none writes into the new state.
  const swap = services.store.prepareReplace(contents);
  services.events.reset();
  await services.messaging.reset();
  await swap();
  await services.events.resume();
  return Object.fromEntries(names.map((name) => [name, contents[name].length]));
}

/**
 * Empties the store and loads `seed` again (the admin API's reset): live replies, streams and
 * pending retries end first. A crash in between leaves an empty store, which the next start
 * seeds again.
 */
export async function resetStore(services: Services, seed: Seed): Promise<void> {
  services.events.reset();
  await services.messaging.reset();
  await services.store.clear();
  await applySeed(services.db, seed);
}
