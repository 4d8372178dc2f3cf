import { conflict } from '../errors.js';
import type { FileStatus } from '#contract';

export { FILE_STATUSES, PARENT_TYPES } from '#contract';

/** The upload status machine (docs/emulator-behaviour.md, "Uploads"): which status may follow which (a new record has `null`: awaiting upload). */
const NEXT: Record<string, readonly FileStatus[]> = {
  null: ['UPLOADED', 'FAILED'],
  UPLOADED: ['PROCESSING', 'COMPLETED', 'FAILED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
  FAILED: ['UPLOADED'],
  COMPLETED: [],
};

/** True when a file may move from `from` to `to`. */
export function canMove(from: FileStatus | null, to: FileStatus): boolean {
  return NEXT[String(from)].includes(to);
}

/** Refuses an illegal status change with a 409 naming the allowed ones. */
export function assertMove(from: FileStatus | null, to: FileStatus): void {
  if (!canMove(from, to)) {
    const allowed = NEXT[String(from)];
    throw conflict(
      `a file in status ${from ?? 'null (awaiting upload)'} cannot become ${to}${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; COMPLETED is final'}`,
    );
  }
}
