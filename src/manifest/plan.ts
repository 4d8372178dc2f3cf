import type { PluginCreate } from '#contract';
import type { Manifest, ManifestAction, ManifestExternalEvent } from './types.js';
import type { AppliedState } from './state.js';

/** What the platform has for a plugin (null plugin: none yet). */
export interface RemoteState {
  plugin: Record<string, unknown> | null;
  actions: Array<Record<string, unknown>>;
  externalEvents: Array<Record<string, unknown>>;
}

export type Resource = 'plugin' | 'action' | 'externalEvent';
export type Operation = 'create' | 'update' | 'delete' | 'unchanged';

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface PlanStep {
  resource: Resource;
  name: string;
  op: Operation;
  changes: FieldChange[];
  /** Set on deletes that were not allowed (no --allow-deletes). */
  skipped?: string;
  /** The desired fields (create and update). */
  desired?: Record<string, unknown>;
}

/** A difference between the platform and what the last deploy applied: a change made elsewhere. */
export interface Drift {
  resource: Resource;
  name: string;
  changes: FieldChange[];
  kind: 'changed' | 'added' | 'removed';
}

export interface Plan {
  pluginId: string | null;
  steps: PlanStep[];
  drift: Drift[];
}

/** The fields a deploy manages (and `pull` writes) of the plugin, its actions and its external events. */
export const MANAGED_FIELDS = {
  plugin: [
    'name',
    'description',
    'type',
    'events',
    'scopes',
    'tags',
    'isPublic',
    'webhookUrl',
    'inputsSchema',
  ],
  actions: ['name', 'title', 'description', 'argsSchema', 'returnSchema'],
  externalEvents: ['name', 'title', 'description', 'payloadSchema'],
} as const;
/** Array fields compared as sets. */
const SET_FIELDS = new Set(['events', 'scopes', 'tags']);

/** JSON with sorted keys (and sorted set fields), for comparisons that ignore order. */
function canonical(value: unknown, field?: string): string {
  const n = field && SET_FIELDS.has(field) && Array.isArray(value) ? [...value].sort() : value;
  // The replacer sees every object before its members are written, so each comes out with sorted keys.
  return JSON.stringify(n ?? null, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, (v as Record<string, unknown>)[k]]),
    );
  });
}

function diff(
  desired: Record<string, unknown>,
  actual: Record<string, unknown> | undefined,
  fields: readonly string[],
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of fields) {
    if (!(field in desired)) continue;
    const to = desired[field];
    const from = actual?.[field];
    if (canonical(from, field) !== canonical(to, field)) changes.push({ field, from, to });
  }
  return changes;
}

/** The fields a deploy manages for the plugin. */
export function desiredPlugin(manifest: Manifest): PluginCreate {
  const p = manifest.plugin;
  return {
    name: p.name,
    description: p.description ?? '',
    type: p.type,
    events: p.events ?? [],
    scopes: p.scopes ?? [],
    tags: p.tags ?? [],
    isPublic: p.isPublic ?? false,
    inputsSchema: p.inputsSchema ?? {},
    ...(p.webhookUrl !== undefined ? { webhookUrl: p.webhookUrl } : {}),
  };
}

/** The managed fields of an action or external event; a schema the manifest does not give is left out. */
function desiredDefinition(
  d: ManifestAction | ManifestExternalEvent,
  fields: readonly string[],
): Record<string, unknown> {
  const given = d as Record<string, unknown>;
  return Object.fromEntries(fields.filter((f) => given[f] !== undefined).map((f) => [f, given[f]]));
}

const DEFINITIONS = [
  { resource: 'action', key: 'actions' },
  { resource: 'externalEvent', key: 'externalEvents' },
] as const;

/** Plans the manifest against the platform (what it lacks: deletes, skipped unless allowed), and drift since the last deploy. */
export function planDeploy(
  manifest: Manifest,
  remote: RemoteState,
  applied: AppliedState | null,
  options: { allowDeletes: boolean },
): Plan {
  const steps: PlanStep[] = [];
  const drift: Drift[] = [];
  type Fields = Record<string, unknown>;
  /** The step from what the platform has (nothing yet: a create) to what is desired. */
  const toward = (
    resource: Resource,
    name: string,
    desired: Fields,
    actual: Fields | null | undefined,
    fields: readonly string[],
  ): PlanStep => {
    const changes = diff(desired, actual ?? undefined, fields);
    const op = !actual ? 'create' : changes.length ? 'update' : 'unchanged';
    return { resource, name, op, changes, desired };
  };
  /** Records what changed on the platform since it was applied. */
  const driftSince = (
    resource: Resource,
    name: string,
    was: Fields,
    now: Fields,
    fields: readonly string[],
  ) => {
    const changes = diff(was, now, fields).map((c) => ({ field: c.field, from: c.to, to: c.from }));
    if (changes.length) drift.push({ resource, name, kind: 'changed', changes });
  };

  steps.push(
    toward(
      'plugin',
      manifest.plugin.name,
      desiredPlugin(manifest),
      remote.plugin,
      MANAGED_FIELDS.plugin,
    ),
  );
  if (applied && remote.plugin)
    driftSince(
      'plugin',
      manifest.plugin.name,
      applied.plugin,
      remote.plugin,
      MANAGED_FIELDS.plugin,
    );

  for (const def of DEFINITIONS) {
    const wanted = new Map(
      manifest[def.key].map((d) => [d.name, desiredDefinition(d, MANAGED_FIELDS[def.key])]),
    );
    const existing = new Map(remote[def.key].map((r) => [String(r.name), r]));
    for (const [name, desired] of wanted)
      steps.push(toward(def.resource, name, desired, existing.get(name), MANAGED_FIELDS[def.key]));
    for (const [name] of existing) {
      if (!wanted.has(name)) {
        steps.push({
          resource: def.resource,
          name,
          op: 'delete',
          changes: [],
          skipped: options.allowDeletes ? undefined : 'pass --allow-deletes to delete it',
        });
      }
    }
    if (applied && remote.plugin) {
      const before = applied[def.key];
      for (const [name, actual] of existing) {
        if (before[name])
          driftSince(def.resource, name, before[name], actual, MANAGED_FIELDS[def.key]);
        else drift.push({ resource: def.resource, name, kind: 'added', changes: [] });
      }
      for (const name of Object.keys(before)) {
        if (!existing.has(name))
          drift.push({ resource: def.resource, name, kind: 'removed', changes: [] });
      }
    }
  }
  return { pluginId: remote.plugin ? String(remote.plugin.id) : null, steps, drift };
}

/** True when applying the plan would change nothing. */
export function isNoop(plan: Plan): boolean {
  return plan.steps.every((s) => s.op === 'unchanged' || (s.op === 'delete' && s.skipped));
}
