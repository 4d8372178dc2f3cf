import type { StoreDeps } from '../../context.js';

/** Plugins being deleted, per emulator (keyed by its collections): installs against them are refused. */
const deleting = new WeakMap<object, Map<string, Promise<void>>>();

/** The deletes under way in one emulator, by plugin id: a plugin among them is being deleted. */
export function pluginDeletions(services: StoreDeps): Map<string, Promise<void>> {
  let map = deleting.get(services.db);
  if (!map) {
    map = new Map();
    deleting.set(services.db, map);
  }
  return map;
}
