import { InvalidOptionValue } from '../commands/types.js';

/** One `--set path=value`: where in the event's `data`, and the value. */
export interface DataOverride {
  path: string[];
  value: unknown;
}

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

/** Parses `--set message.content="Hi there"` (repeatable): the value is JSON when it parses as JSON, else the text. */
export function parseSet(raw: string, previous: unknown): DataOverride[] {
  const list = Array.isArray(previous) ? (previous as DataOverride[]) : [];
  const eq = raw.indexOf('=');
  if (eq <= 0)
    throw new InvalidOptionValue(
      `--set takes path=value (e.g. message.content=hello), not "${raw}"`,
    );
  const path = raw.slice(0, eq).split('.');
  if (path.some((p) => p === '' || UNSAFE.has(p)))
    throw new InvalidOptionValue(
      `--set: "${raw.slice(0, eq)}" is not a valid path (dot-separated names)`,
    );
  const text = raw.slice(eq + 1);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // plain text
  }
  return [...list, { path, value }];
}

/** Applies the overrides to a copy of `data`, creating objects along the path as needed (numeric segments index arrays). */
export function applyOverrides(
  data: Record<string, unknown>,
  overrides: DataOverride[],
): Record<string, unknown> {
  const out = structuredClone(data);
  for (const { path, value } of overrides) {
    let node: Record<string, unknown> | unknown[] = out;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i];
      const next = (node as Record<string, unknown>)[key];
      if (next === null || typeof next !== 'object')
        (node as Record<string, unknown>)[key] = /^\d+$/.test(path[i + 1]) ? [] : {};
      node = (node as Record<string, unknown>)[key] as Record<string, unknown>;
    }
    (node as Record<string, unknown>)[path[path.length - 1]] = value;
  }
  return out;
}
