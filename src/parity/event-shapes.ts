import { WEBHOOK_EVENT_SCHEMAS } from '#contract/events';
import type { Difference, ExtraField, ParityReport } from './compare.js';
import type { Shape } from './shape.js';
import { CHECK_PROBE_EVENT_TYPE } from '../check/probe-event.js';

// The shapes of the events a plugin received from the real platform (a generated plugin writes them
// when PLUGSMITH_EVENT_SHAPES names a file: field paths and JSON types by event type, never a value),
// compared with the emulator's event schemas (src/shared/contract/events.ts, what it delivers).

/** The version of the event-shapes file format the templates write and this plugsmith reads. */
export const EVENT_SHAPES_VERSION = 1;

/** An event-shapes file: the shape of every event type received, the union over its deliveries. */
export interface EventShapesFile {
  version: number;
  events: Record<string, Shape>;
}

/** The problems of a parsed event-shapes file, each with where it is; an empty list for a good one. */
export function eventShapesProblems(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return ['the file must hold a JSON object'];
  const file = value as Partial<EventShapesFile>;
  const problems: string[] = [];
  if (file.version !== EVENT_SHAPES_VERSION)
    problems.push(
      `version: this plugsmith reads version ${EVENT_SHAPES_VERSION}, not ${JSON.stringify(file.version)}`,
    );
  const events = file.events as unknown;
  if (events === null || typeof events !== 'object' || Array.isArray(events))
    return [...problems, 'events: must be an object of event types'];
  for (const [type, shape] of Object.entries(events as object)) {
    if (
      shape === null ||
      typeof shape !== 'object' ||
      Array.isArray(shape) ||
      Object.values(shape as object).some((t) => typeof t !== 'string')
    )
      problems.push(`events.${type}: must map paths to type names`);
  }
  return problems;
}

/** What a schema allows at one path: its JSON types (`any`: every type), whether it must be present, whether its keys are free. */
interface Allowed {
  types: Set<string>;
  required: boolean;
  /** An object whose keys are not declared (free-form, such as an installation's `inputs`): nothing below it is compared. */
  freeForm: boolean;
}

type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

const EVERY_TYPE = ['array', 'boolean', 'null', 'number', 'object', 'string'];

/** The JSON types a schema admits (integer is a number; no type, const or enum: any). */
function typesOf(schema: JsonSchema): string[] {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return [...new Set(branches.flatMap(typesOf))];
  if (schema.allOf) {
    const sets = schema.allOf.map(typesOf);
    return sets.reduce((a, b) => a.filter((t) => b.includes(t)));
  }
  const declared = schema.type === undefined ? [] : [schema.type].flat();
  if (declared.length > 0) return declared.map((t) => (t === 'integer' ? 'number' : t));
  if (schema.properties || schema.patternProperties) return ['object'];
  if (schema.items) return ['array'];
  return EVERY_TYPE;
}

/** Every path a schema declares, with what it allows there (`x[]`: an array's items, as shape paths name them). */
export function schemaPaths(schema: unknown): Map<string, Allowed> {
  const paths = new Map<string, Allowed>();
  walkSchema(schema as JsonSchema, '', true, paths);
  return paths;
}

function walkSchema(
  schema: JsonSchema,
  path: string,
  required: boolean,
  paths: Map<string, Allowed>,
): void {
  // The object and array parts of a union or an intersection, each walked at the same path.
  const parts = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  const properties: Record<string, JsonSchema[]> = {};
  const requiredBy: Record<string, number> = {};
  let objectParts = 0;
  let open = false;
  const items: JsonSchema[] = [];
  for (const part of parts ? [schema, ...parts] : [schema]) {
    if (part.properties) {
      objectParts++;
      for (const [key, child] of Object.entries(part.properties)) {
        properties[key] = [...(properties[key] ?? []), child];
        if (part.required?.includes(key)) requiredBy[key] = (requiredBy[key] ?? 0) + 1;
      }
    }
    if (part.patternProperties || part.additionalProperties === true) open = true;
    if (typeof part.additionalProperties === 'object') open = true;
    if (part.items) items.push(part.items);
  }
  if (path !== '') {
    const types = new Set(typesOf(schema));
    const freeForm =
      (objectParts === 0 && types.has('object') && (open || !parts)) ||
      (types.size === EVERY_TYPE.length && objectParts === 0);
    paths.set(path, { types, required, freeForm });
    if (freeForm) return;
  }
  // In an intersection every part's required keys are required; in a union, only keys every object part requires.
  const needed = schema.allOf ? 1 : Math.max(objectParts, 1);
  for (const [key, children] of Object.entries(properties)) {
    const child = children.length === 1 ? children[0] : { allOf: children };
    walkSchema(
      child,
      path === '' ? key : `${path}.${key}`,
      required && (requiredBy[key] ?? 0) >= needed,
      paths,
    );
  }
  for (const item of items) walkSchema(item, `${path}[]`, false, paths);
}

/** The step name an event's differences carry in the report. */
export const eventStep = (type: string): string => `event.${type}`;

/** What comparing a file of event shapes with the emulator's event schemas found. */
export interface EventShapesReport {
  differences: Difference[];
  extras: ExtraField[];
  /** The event types compared. */
  compared: string[];
  /** Recorded event types left out (no platform sent them), and why. */
  leftOut: Array<{ step: string; why: string }>;
}

/** Compares each recorded event type's shape with the schema of the event the emulator sends. */
export function compareEventShapes(
  file: EventShapesFile,
  schemas: Record<string, unknown> = WEBHOOK_EVENT_SCHEMAS,
): EventShapesReport {
  const differences: Difference[] = [];
  const extras: ExtraField[] = [];
  const compared: string[] = [];
  const leftOut: EventShapesReport['leftOut'] = [];
  for (const [type, shape] of Object.entries(file.events)) {
    const where = { step: eventStep(type), method: 'POST', pathTemplate: ':webhookUrl' };
    if (type === CHECK_PROBE_EVENT_TYPE) {
      leftOut.push({
        step: where.step,
        why: '`plugsmith check` sent it (its probe of an unknown event kind), not the platform',
      });
      continue;
    }
    const schema = Object.hasOwn(schemas, type) ? schemas[type] : undefined;
    if (schema === undefined) {
      differences.push({
        ...where,
        kind: 'event',
        platform: 'sent',
        emulator: 'no such event',
      });
      continue;
    }
    compared.push(type);
    const allowed = schemaPaths(schema);
    const underFreeForm = (path: string) =>
      ancestors(path).some((parent) => allowed.get(parent)?.freeForm);
    for (const [path, recorded] of Object.entries(shape)) {
      if (underFreeForm(path)) continue;
      const declared = allowed.get(path);
      if (!declared) {
        // Under a field the emulator does not send either, the parent says it.
        if (!ancestors(path).some((parent) => shape[parent] && !allowed.has(parent)))
          differences.push({
            ...where,
            kind: 'missing-field',
            path,
            platform: recorded,
            emulator: 'absent',
          });
        continue;
      }
      const outside = recorded.split('|').filter((t) => !declared.types.has(t));
      if (outside.length > 0)
        differences.push({
          ...where,
          kind: 'type',
          path,
          platform: recorded,
          emulator: [...declared.types].sort().join('|'),
        });
    }
    // A field the emulator always sends that the platform never did, where the platform sent its parent object.
    for (const [path, declared] of allowed) {
      if (!declared.required || shape[path] !== undefined || path.endsWith('[]')) continue;
      const parent = ancestors(path)[0];
      if (parent !== undefined && !shape[parent]?.split('|').includes('object')) continue;
      extras.push({
        step: where.step,
        path,
        type: [...declared.types].sort().join('|'),
      });
    }
  }
  return { differences, extras, compared, leftOut };
}

/** The section of docs/emulator-behaviour.md that describes the events the emulator delivers. */
const DELIVERY_BEHAVIOUR = 'Webhook delivery';

/** A report of the requests (or an empty one, with no parity file) with the events' comparison added. */
export function withEvents(
  report: ParityReport | undefined,
  events: EventShapesReport,
): ParityReport {
  const base: ParityReport = report ?? {
    ok: true,
    differences: [],
    extras: [],
    notReplayed: [],
    notRecorded: [],
    behaviours: [],
    compared: 0,
    comparedEvents: [],
  };
  const differences = [...base.differences, ...events.differences];
  const steps = events.compared.map(eventStep);
  const behaviours = base.behaviours.map((b) =>
    b.section === DELIVERY_BEHAVIOUR ? { ...b, steps: [...b.steps, ...steps] } : b,
  );
  if (steps.length > 0 && !behaviours.some((b) => b.section === DELIVERY_BEHAVIOUR))
    behaviours.push({ section: DELIVERY_BEHAVIOUR, steps });
  return {
    ...base,
    ok: differences.length === 0,
    differences,
    extras: [...base.extras, ...events.extras],
    behaviours,
    notRecorded: [...base.notRecorded, ...events.leftOut],
    comparedEvents: [...base.comparedEvents, ...events.compared],
  };
}

/** The parent paths of a shape path, nearest first (`a.b[].c` → `a.b[]`, `a.b`, `a`). */
function ancestors(path: string): string[] {
  const out: string[] = [];
  let current = path;
  for (;;) {
    if (current.endsWith('[]')) current = current.slice(0, -2);
    else {
      const dot = current.lastIndexOf('.');
      if (dot < 0) break;
      current = current.slice(0, dot);
    }
    out.push(current);
  }
  return out;
}
