import type { Envelope, Shape } from './shape.js';

// The parity file (docs/parity.md, "The parity file"): shapes, not values, meant to be committed.

/** The version of the parity file format this plugsmith writes and reads. */
export const PARITY_VERSION = 1;

/** A value the journey marks stable: an enum the spec names, a boolean, a count of the journey's own records. */
export type StableValue = string | number | boolean | null;

/** One request of the probe journey and what its answer looked like. */
export interface Exchange {
  /** The journey's name for the step (`plugins.create`), the key the check matches on. */
  step: string;
  method: string;
  /** The path with every id replaced by its name (`/api/plugins/:pluginId`), query constants kept. */
  pathTemplate: string;
  /** The HTTP status, or null when the step was not run (see `skipped`). */
  status: number | null;
  envelope: Envelope | null;
  shape: Shape;
  /** `error.error` of an error answer, else null. */
  errorType: string | null;
  /** The values of the fields the journey marks stable (and only those). */
  values?: Record<string, StableValue>;
  /** Why the step was not run (a missing flag, a step it needs that failed). */
  skipped?: string;
}

/** A whole parity file. */
export interface ParityFile {
  version: number;
  recordedAt: string;
  /** `remote` for a recording of a real platform; `emulator` for one of the emulator (for tests and comparisons). */
  target: { kind: 'remote' | 'emulator' };
  /** The plugsmith version that recorded it, so the journey it ran can be told. */
  plugsmith?: string;
  exchanges: Exchange[];
}

/** The problems of a parsed parity file, each with where it is; an empty list for a good one. */
export function parityFileProblems(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return ['the file must hold a JSON object'];
  const file = value as Partial<ParityFile>;
  const problems: string[] = [];
  if (file.version !== PARITY_VERSION)
    problems.push(
      `version: this plugsmith reads version ${PARITY_VERSION}, not ${JSON.stringify(file.version)}`,
    );
  if (!Array.isArray(file.exchanges)) return [...problems, 'exchanges: must be an array'];
  file.exchanges.forEach((exchange, index) => {
    const where = `exchanges[${index}]`;
    if (exchange === null || typeof exchange !== 'object') {
      problems.push(`${where}: must be an object`);
      return;
    }
    if (typeof exchange.step !== 'string') problems.push(`${where}.step: must be a string`);
    for (const field of ['method', 'pathTemplate'] as const)
      if (typeof exchange[field] !== 'string') problems.push(`${where}.${field}: must be a string`);
    for (const field of ['envelope', 'errorType'] as const)
      if (exchange[field] !== null && typeof exchange[field] !== 'string')
        problems.push(`${where}.${field}: must be a string or null`);
    if (exchange.skipped !== undefined && typeof exchange.skipped !== 'string')
      problems.push(`${where}.skipped: must be a string`);
    const values = exchange.values as unknown;
    if (
      values !== undefined &&
      (values === null ||
        typeof values !== 'object' ||
        Array.isArray(values) ||
        Object.values(values as object).some(
          (value) => value !== null && !['string', 'number', 'boolean'].includes(typeof value),
        ))
    )
      problems.push(`${where}.values: must map paths to strings, numbers, booleans or null`);
    if (exchange.status !== null && !Number.isInteger(exchange.status))
      problems.push(`${where}.status: must be a whole number or null`);
    const shape = exchange.shape as unknown;
    if (
      shape === null ||
      typeof shape !== 'object' ||
      Array.isArray(shape) ||
      Object.values(shape as object).some((type) => typeof type !== 'string')
    )
      problems.push(`${where}.shape: must map paths to type names`);
  });
  return problems;
}
