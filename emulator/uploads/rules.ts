import { conflict } from '../errors.js';

/** File statuses (a new record has `null`: awaiting upload), parent types and the spec's limits: the contract's. */
export { FILE_STATUSES, PARENT_TYPES, MAX_FILES_PER_REQUEST, MAX_FILE_BYTES, type FileStatus, type ParentType } from '../../src/contract/index.js';
import type { FileStatus } from '../../src/contract/index.js';

export const MAX_FILE_NAME = 255;
export const MAX_FOLDER = 100;

/** DESIGN.md's status machine: which status may follow which. */
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
    throw conflict(`a file in status ${from ?? 'null (awaiting upload)'} cannot become ${to}${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; COMPLETED is final'}`);
  }
}

/** A file name problem, or null: 1 to 255 characters, none of / \ : * ? " < > |, no control characters, not . or .. */
export function fileNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_FILE_NAME) return `must be at most ${MAX_FILE_NAME} characters`;
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  if (/[/\\:*?"<>|]/.test(name)) return 'must not contain any of / \\ : * ? " < > |';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters';
  return null;
}

/** A folder problem, or null: at most 100 characters, segments separated by /, no empty segment, no "..". */
export function folderProblem(folder: string): string | null {
  if (folder.length > MAX_FOLDER) return `must be at most ${MAX_FOLDER} characters`;
  if (folder.length === 0) return 'must not be empty (omit it instead)';
  const segments = folder.replace(/^\/+|\/+$/g, '').split('/');
  for (const s of segments) {
    if (s === '..' || s === '.') return 'must not contain "." or ".." segments';
    if (s === '') return 'must not contain empty segments (//)';
    const p = fileNameProblem(s);
    if (p) return `segment "${s}" ${p}`;
  }
  return null;
}
