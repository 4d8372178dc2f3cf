import { conflict, found, notFound } from '../../errors.js';
import { nowIso } from '../../store/ids.js';
import type { Collection } from '../../store/store.js';
import type { Action, ExternalEvent } from '#contract';
import type { StoreDeps } from '../../context.js';
import { pluginDeletions } from '../plugins/deletion-service.js';

/** A named definition inside a plugin: an action or an external event. */
export type Definition = Action | ExternalEvent;

/** The definition of a plugin with that name, if any. */
export function byName(
  collection: Collection<Definition>,
  pluginId: string,
  name: string,
): Definition | undefined {
  return collection.where('pluginId', pluginId).find((d) => d.name === name);
}

/** The plugin must still exist and not be on its way out: a definition never outlives its plugin. */
function requireLivePlugin(services: StoreDeps, pluginId: string): void {
  if (!services.db.plugins.has(pluginId) || pluginDeletions(services).has(pluginId))
    throw notFound('plugin', pluginId);
}

/** Adds an action or external event; names are unique inside a plugin (a 409 naming the fix otherwise). */
export async function createDefinition(
  services: StoreDeps,
  collection: Collection<Definition>,
  noun: string,
  record: Definition,
): Promise<Definition> {
  requireLivePlugin(services, record.pluginId);
  if (byName(collection, record.pluginId, record.name)) {
    throw conflict(
      `plugin ${record.pluginId} already has an ${noun} named ${record.name}: update it with PUT instead`,
    );
  }
  await collection.put(record);
  return record;
}

/** Changes a definition, checked against the current record (it may have been renamed or deleted meanwhile). */
export async function updateDefinition(
  services: StoreDeps,
  collection: Collection<Definition>,
  noun: string,
  existing: Definition,
  body: Record<string, unknown>,
): Promise<Definition> {
  requireLivePlugin(services, existing.pluginId);
  const current = found(collection.get(existing.id), noun, existing.name);
  if (
    typeof body.name === 'string' &&
    body.name !== current.name &&
    byName(collection, current.pluginId, body.name)
  ) {
    throw conflict(`plugin ${current.pluginId} already has an ${noun} named ${body.name}`);
  }
  const updated: Definition = { ...current, ...body, updatedAt: nowIso() };
  await collection.put(updated);
  return updated;
}

/** Removes a definition (the caller checked it exists and who may). */
export async function deleteDefinition(
  collection: Collection<Definition>,
  existing: Definition,
): Promise<void> {
  await collection.delete(existing.id);
}
