import type { GlobalOptions } from '../commands/types.js';
import type { Io } from './io.js';
import { escapeControls } from './terminal-text.js';

/** A column of a table: a header and how to read the cell from a row. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** `text`, cut to `max` characters with an ellipsis when longer. */
export function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length ? value.join(',') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Renders rows as an aligned text table, truncating long cells to the terminal width. */
export function table<T>(
  rows: T[],
  columns: Column<T>[],
  options: { bold?: (s: string) => string; width?: number } = {},
): string {
  const cells = rows.map((r) =>
    columns.map((c) => escapeControls(cell(c.value(r)).replace(/\s+/g, ' '))),
  );
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...cells.map((row) => row[i].length)),
  );
  const max = options.width ?? 0;
  let total = widths.reduce((a, b) => a + b + 2, 0);
  // Shrink the widest column until it fits, but never below 12 characters.
  while (max > 0 && total > max) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= 12) break;
    widths[widest]--;
    total--;
  }
  const fit = (s: string, w: number) => shorten(s, w).padEnd(w);
  const bold = options.bold ?? ((s: string) => s);
  const lines = [
    bold(
      columns
        // biome-ignore lint/suspicious/noFocusedTests: fit() pads a cell to its column's width; it is not a focused test
        .map((c, i) => fit(c.header, widths[i]))
        .join('  ')
        .trimEnd(),
    ),
  ];
  for (const row of cells)
    lines.push(
      row
        // biome-ignore lint/suspicious/noFocusedTests: fit() pads a cell to its column's width; it is not a focused test
        .map((v, i) => fit(v, widths[i]))
        .join('  ')
        .trimEnd(),
    );
  return lines.join('\n') + '\n';
}

/** Prints a command's result: JSON on stdout with --json, otherwise the human rendering. */
export function printResult(
  io: Io,
  global: GlobalOptions,
  data: unknown,
  human: () => string,
): void {
  io.stdout.write(global.json ? JSON.stringify(data, null, 2) + '\n' : human());
}

/** Prints a note for people on stderr (silenced by --quiet; stdout, where --json goes, stays data only). */
export function note(io: Io, global: GlobalOptions, message: string): void {
  if (global.quiet) return;
  io.stderr.write(message.endsWith('\n') ? message : message + '\n');
}

/** Key: value lines for one record. */
export function details(record: Record<string, unknown>, keys?: string[]): string {
  const entries = (keys ?? Object.keys(record))
    .filter((k) => record[k] !== undefined)
    .map((k) => [k, record[k]] as const);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return (
    entries
      .map(
        ([k, v]) =>
          `${escapeControls(k.padEnd(width))}  ${escapeControls(typeof v === 'object' && v !== null ? JSON.stringify(v) : cell(v))}`,
      )
      .join('\n') + '\n'
  );
}
