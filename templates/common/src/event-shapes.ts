import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** An event type's shape: every field's path (`data.message.content`, `list[]` for an array's items) and its JSON type(s). */
type Shape = Record<string, string>;

/** Fields whose keys are the installation's own (its inputs, its dispatch condition): only their own type is kept. */
const OPAQUE = new Set(['data.instance.inputs', 'data.instance.eventDispatchCondition']);

/**
 * With PLUGSMITH_EVENT_SHAPES=<file>, the plugin keeps the shape of every verified event it receives
 * in that file, by event type: field paths and JSON types (`string`, `number`, `boolean`, `null`,
 * `object`, `array`; `null|string` where deliveries differ), never a value, id or text. Run the
 * deployed plugin with it for a while, then `npx plugsmith parity check --event-shapes <file>`
 * compares what the platform sent with the events of plugsmith's emulator.
 */
export class EventShapes {
  private readonly events: Record<string, Shape>;

  constructor(readonly path: string) {
    this.events = readShapes(path);
  }

  /** Adds an event's shape to its type's; writes the file when a path or a type is new. */
  add(event: { type: string }): void {
    if (!/^[A-Z][A-Z0-9_]{0,99}$/.test(event.type)) return;
    const shape = this.events[event.type] ?? {};
    let changed = false;
    for (const [path, type] of shapeOf(event)) {
      const types = new Set(shape[path]?.split('|'));
      if (types.has(type)) continue;
      shape[path] = [...types, type].sort().join('|');
      changed = true;
    }
    if (!changed) return;
    this.events[event.type] = shape;
    this.write();
  }

  private write(): void {
    const events = Object.fromEntries(
      Object.keys(this.events)
        .sort()
        .map((type) => [type, sortedKeys(this.events[type])]),
    );
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(`${this.path}.tmp`, `${JSON.stringify({ version: 1, events }, null, 2)}\n`);
      renameSync(`${this.path}.tmp`, this.path);
    } catch (error) {
      // Keeping shapes never fails a delivery.
      console.error(
        `PLUGSMITH_EVENT_SHAPES: cannot write ${this.path}: ${(error as Error).message}`,
      );
    }
  }
}

/** Every path of a parsed JSON value with its JSON type; nothing of its values. */
function* shapeOf(value: unknown, path = ''): Generator<[string, string]> {
  if (path !== '')
    yield [path, value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value];
  if (OPAQUE.has(path)) return;
  if (Array.isArray(value)) for (const item of value) yield* shapeOf(item, `${path}[]`);
  else if (value !== null && typeof value === 'object')
    for (const [key, child] of Object.entries(value))
      yield* shapeOf(child, path === '' ? key : `${path}.${key}`);
}

function sortedKeys(shape: Shape): Shape {
  return Object.fromEntries(
    Object.keys(shape)
      .sort()
      .map((path) => [path, shape[path]]),
  );
}

/** The shapes kept so far (none when the file does not exist yet); a file of something else stops the plugin at start. */
function readShapes(path: string): Record<string, Shape> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let file: { version?: unknown; events?: unknown } | undefined;
  try {
    file = JSON.parse(text);
  } catch {
    file = undefined;
  }
  if (file?.version !== 1 || typeof file.events !== 'object' || file.events === null)
    throw new Error(
      `PLUGSMITH_EVENT_SHAPES: ${path} is not an event-shapes file ({ "version": 1, "events": … }): name another file, or remove it`,
    );
  return file.events as Record<string, Shape>;
}
