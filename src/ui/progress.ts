import { stripVTControlCharacters } from 'node:util';
import type { GlobalOptions } from '../commands/types.js';
import type { Io } from './io.js';
import { styleFor } from './style.js';
import { escapeControls, rawStream, terminalText } from './terminal-text.js';

/** A progress display of transfers (bytes of several files); every method is a no-op when off. */
export interface TransferProgress {
  /** Adds files and bytes still to come (e.g. a new batch). */
  expect(files: number, bytes: number): void;
  /** The bytes sent so far of one file (running total, as the client reports it). */
  update(key: string, label: string, sent: number): void;
  /** One file is finished (uploaded or failed); its whole size counts as done. */
  done(key: string, size: number): void;
  /** Prints a line above the bar (the bar is redrawn under it). */
  log(line: string): void;
  /** Clears the bar; call once at the end. */
  stop(): void;
}

const NONE: TransferProgress = { expect() {}, update() {}, done() {}, log() {}, stop() {} };
const REDRAW_MS = 80;

/** The number of bytes in binary units, labelled as such (1.2 MiB = 1.2 × 1024 × 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  const power = Math.min(units.length, Math.floor(Math.log2(bytes) / 10));
  const value = bytes / 1024 ** power;
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[power - 1]}`;
}

/** A one-line progress bar on stderr, only for a person at a terminal (not with --quiet). */
export function createTransferProgress(
  io: Io,
  global: Pick<GlobalOptions, 'quiet' | 'color'>,
): TransferProgress {
  // The bar redraws its line with control characters, which the filtered stream would escape: it escapes the names itself.
  const stream = rawStream(io.stderr);
  if (!stream.isTTY || global.quiet) return NONE;
  const style = styleFor(io, global, 'stderr');
  let totalFiles = 0;
  let totalBytes = 0;
  let finishedFiles = 0;
  const sent = new Map<string, { label: string; bytes: number }>();
  let finishedBytes = 0;
  let lastDraw = 0;
  let drawn = false;

  function line(): string {
    let bytes = finishedBytes;
    for (const s of sent.values()) bytes += s.bytes;
    const ratio =
      totalBytes > 0 ? Math.min(1, bytes / totalBytes) : finishedFiles / Math.max(1, totalFiles);
    const width = 24;
    const filled = Math.round(ratio * width);
    const bar = style.cyan('█'.repeat(filled)) + style.dim('░'.repeat(width - filled));
    const current = escapeControls([...sent.values()].map((s) => s.label).join(', '));
    const text = `${bar} ${String(Math.round(ratio * 100)).padStart(3)}%  ${finishedFiles}/${totalFiles} files  ${formatBytes(bytes)}/${formatBytes(totalBytes)}  ${current}`;
    // A terminal that reports no size (some ptys say 0) gets the classic 80 columns.
    const columns = stream.columns && stream.columns >= 40 ? stream.columns : 80;
    // Cut the plain tail (the file names) so the line never wraps; the coloured bar comes first.
    const visible = stripVTControlCharacters(text);
    return visible.length > columns - 1
      ? text.slice(0, text.length - (visible.length - (columns - 1)))
      : text;
  }

  function draw(force = false): void {
    const now = Date.now();
    if (!force && now - lastDraw < REDRAW_MS) return;
    lastDraw = now;
    stream.write(`\r\x1b[2K${line()}`);
    drawn = true;
  }

  function stop(): void {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  }

  return {
    expect(files, bytes) {
      totalFiles += files;
      totalBytes += bytes;
      draw(true);
    },
    update(key, label, bytes) {
      sent.set(key, { label, bytes });
      draw();
    },
    done(key, size) {
      finishedBytes += size;
      sent.delete(key);
      finishedFiles++;
      draw(true);
    },
    log(text) {
      stop();
      stream.write(terminalText(text.endsWith('\n') ? text : text + '\n'));
      draw(true);
    },
    stop,
  };
}
