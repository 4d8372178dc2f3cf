import type { PlatformClient } from '../client/index.js';
import type { Manifest } from './types.js';
import type { Plan, PlanStep, RemoteState, Resource } from './plan.js';
import { desiredPlugin } from './plan.js';
import type { AppliedState } from './state.js';

/** Reads what the platform has for a plugin id (null id, or a plugin that is gone: none). */
export async function fetchRemote(
  client: PlatformClient,
  pluginId: string | null,
): Promise<RemoteState> {
  const none: RemoteState = { plugin: null, actions: [], externalEvents: [] };
  if (!pluginId) return none;
  const { isApiError, collect } = await import('../client/index.js');
  let plugin: Record<string, unknown>;
  try {
    plugin = await client.plugins.get(pluginId);
  } catch (error) {
    if (isApiError(error) && error.status === 404) return none;
    throw error;
  }
  const [actions, externalEvents] = await Promise.all([
    collect((q) => client.actions.list(pluginId, q), { limit: 100 }),
    collect((q) => client.externalEvents.list(pluginId, q), { limit: 100 }),
  ]);
  return { plugin, actions, externalEvents };
}

/** Applies a plan: the plugin first, then creates and updates, deletes last; `onPluginCreated` records the new id before anything can fail. */
export async function applyPlan(
  client: PlatformClient,
  manifest: Manifest,
  plan: Plan,
  orgId: string,
  hooks: {
    onPluginCreated?: (pluginId: string) => Promise<void>;
    onStep?: (step: PlanStep) => void;
  } = {},
): Promise<{
  pluginId: string;
  plugin: Record<string, unknown>;
  applied: AppliedState;
  done: PlanStep[];
}> {
  const done: PlanStep[] = [];
  const changed = (step: PlanStep) =>
    Object.fromEntries(step.changes.map((c) => [c.field, c.to])) as never;
  const pluginStep = plan.steps.find((s) => s.resource === 'plugin')!;
  let pluginId = plan.pluginId;
  let plugin: Record<string, unknown>;
  if (pluginStep.op === 'create') {
    plugin = (await client.plugins.createInOrg(orgId, pluginStep.desired as never)) as Record<
      string,
      unknown
    >;
    pluginId = String(plugin.id);
    await hooks.onPluginCreated?.(pluginId);
  } else if (pluginStep.op === 'update') {
    plugin = (await client.plugins.update(pluginId!, changed(pluginStep))) as Record<
      string,
      unknown
    >;
  } else {
    plugin = (await client.plugins.get(pluginId!)) as Record<string, unknown>;
  }
  if (pluginStep.op !== 'unchanged') {
    done.push(pluginStep);
    hooks.onStep?.(pluginStep);
  }

  const ordered = [
    ...plan.steps.filter(
      (s) => s.resource !== 'plugin' && (s.op === 'create' || s.op === 'update'),
    ),
    ...plan.steps.filter((s) => s.resource !== 'plugin' && s.op === 'delete' && !s.skipped),
  ];
  for (const step of ordered) {
    const api = step.resource === 'action' ? client.actions : client.externalEvents;
    if (step.op === 'create') await api.create(pluginId!, step.desired as never);
    else if (step.op === 'update') await api.update(pluginId!, step.name, changed(step));
    else await api.delete(pluginId!, step.name);
    done.push(step);
    hooks.onStep?.(step);
  }

  const desired = (resource: Resource) =>
    Object.fromEntries(
      plan.steps
        .filter((s) => s.resource === resource && s.desired)
        .map((s) => [s.name, s.desired!]),
    );
  const applied: AppliedState = {
    plugin: desiredPlugin(manifest),
    actions: desired('action'),
    externalEvents: desired('externalEvent'),
  };
  return { pluginId: pluginId!, plugin, applied, done };
}
