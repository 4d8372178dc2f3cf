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
  const pluginStep = plan.steps.find((s) => s.resource === 'plugin')!;
  // The bodies are the manifest's own (typed) fields: a plan step's `desired` holds the same values, untyped for comparing.
  const pluginFields = desiredPlugin(manifest);
  let pluginId = plan.pluginId;
  let plugin: Record<string, unknown>;
  if (pluginStep.op === 'create') {
    plugin = await client.plugins.createInOrg(orgId, pluginFields);
    pluginId = String(plugin.id);
    await hooks.onPluginCreated?.(pluginId);
  } else if (pluginStep.op === 'update') {
    plugin = await client.plugins.update(pluginId!, changedFields(pluginFields, pluginStep));
  } else {
    plugin = await client.plugins.get(pluginId!);
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
    if (step.resource === 'action') {
      const api = client.actions;
      if (step.op === 'delete') await api.delete(pluginId!, step.name);
      else {
        const fields = definitionOf(manifest.actions, step);
        if (step.op === 'create') await api.create(pluginId!, fields);
        else await api.update(pluginId!, step.name, changedFields(fields, step));
      }
    } else {
      const api = client.externalEvents;
      if (step.op === 'delete') await api.delete(pluginId!, step.name);
      else {
        const fields = definitionOf(manifest.externalEvents, step);
        if (step.op === 'create') await api.create(pluginId!, fields);
        else await api.update(pluginId!, step.name, changedFields(fields, step));
      }
    }
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

/** The manifest's action or external event a step creates or updates (the plan made the step from it, by name). */
function definitionOf<T extends { name: string }>(definitions: T[], step: PlanStep): T {
  const definition = definitions.find((d) => d.name === step.name);
  if (!definition)
    throw new Error(`the plan names ${step.resource} ${step.name}, which the manifest lacks`);
  return definition;
}

/** The fields of `fields` that a step changes: the body of its update. */
function changedFields<T extends object>(fields: T, step: PlanStep): Partial<T> {
  const body: Partial<T> = {};
  for (const { field } of step.changes) if (isFieldOf(fields, field)) body[field] = fields[field];
  return body;
}

function isFieldOf<T extends object>(value: T, field: string): field is Extract<keyof T, string> {
  return field in value;
}
