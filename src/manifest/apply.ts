import type { PlatformClient } from '../client/index.js';
import type { Manifest } from './types.js';
import type { Plan, PlanStep, RemoteState } from './plan.js';
import { desiredPlugin } from './plan.js';
import type { AppliedState } from './state.js';

/** Reads what the platform has for a plugin id (null id, or a plugin that is gone: none). */
export async function fetchRemote(client: PlatformClient, pluginId: string | null): Promise<RemoteState> {
  if (!pluginId) return { plugin: null, actions: [], externalEvents: [] };
  const { isApiError, paginate } = await import('../client/index.js');
  let plugin: Record<string, unknown>;
  try {
    plugin = (await client.plugins.get(pluginId)) as Record<string, unknown>;
  } catch (error) {
    if (isApiError(error) && error.status === 404) return { plugin: null, actions: [], externalEvents: [] };
    throw error;
  }
  const all = async <T>(list: (q: { page?: number; limit?: number; cursor?: string }) => Promise<{ data: T[] }>) => {
    const out: T[] = [];
    for await (const item of paginate(list as never, { limit: 100 })) out.push(item as T);
    return out;
  };
  const [actions, externalEvents] = await Promise.all([
    all((q) => client.actions.list(pluginId, q)),
    all((q) => client.externalEvents.list(pluginId, q)),
  ]);
  return { plugin, actions: actions as Array<Record<string, unknown>>, externalEvents: externalEvents as Array<Record<string, unknown>> };
}

interface ApplyResult {
  pluginId: string;
  plugin: Record<string, unknown>;
  applied: AppliedState;
  done: PlanStep[];
}

/**
 * Applies a plan in a safe order: the plugin first, then creates and updates, deletes last;
 * `onPluginCreated` lets the caller record the new id before anything else can fail.
 */
export async function applyPlan(
  client: PlatformClient,
  manifest: Manifest,
  plan: Plan,
  orgId: string,
  hooks: { onPluginCreated?: (pluginId: string) => Promise<void>; onStep?: (step: PlanStep) => void } = {},
): Promise<ApplyResult> {
  const done: PlanStep[] = [];
  const pluginStep = plan.steps.find((s) => s.resource === 'plugin')!;
  let pluginId = plan.pluginId;
  let plugin: Record<string, unknown>;
  if (pluginStep.op === 'create') {
    plugin = (await client.plugins.createInOrg(orgId, pluginStep.desired as never)) as Record<string, unknown>;
    pluginId = String(plugin.id);
    await hooks.onPluginCreated?.(pluginId);
  } else if (pluginStep.op === 'update') {
    const body = Object.fromEntries(pluginStep.changes.map((c) => [c.field, c.to]));
    plugin = (await client.plugins.update(pluginId!, body as never)) as Record<string, unknown>;
  } else {
    plugin = (await client.plugins.get(pluginId!)) as Record<string, unknown>;
  }
  if (pluginStep.op !== 'unchanged') {
    done.push(pluginStep);
    hooks.onStep?.(pluginStep);
  }

  const resourceApi = (step: PlanStep) => (step.resource === 'action' ? client.actions : client.externalEvents);
  const ordered = [
    ...plan.steps.filter((s) => s.resource !== 'plugin' && (s.op === 'create' || s.op === 'update')),
    ...plan.steps.filter((s) => s.resource !== 'plugin' && s.op === 'delete' && !s.skipped),
  ];
  for (const step of ordered) {
    const api = resourceApi(step);
    if (step.op === 'create') await api.create(pluginId!, step.desired as never);
    else if (step.op === 'update') await api.update(pluginId!, step.name, Object.fromEntries(step.changes.map((c) => [c.field, c.to])) as never);
    else await api.delete(pluginId!, step.name);
    done.push(step);
    hooks.onStep?.(step);
  }

  const applied: AppliedState = { plugin: desiredPlugin(manifest), actions: {}, externalEvents: {} };
  for (const step of plan.steps) {
    if (step.resource === 'action' && step.desired) applied.actions[step.name] = step.desired;
    if (step.resource === 'externalEvent' && step.desired) applied.externalEvents[step.name] = step.desired;
  }
  return { pluginId: pluginId!, plugin, applied, done };
}
