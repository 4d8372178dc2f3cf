import { open, type FileHandle } from 'node:fs/promises';
import { pauseAt, pausesAt } from './pause.js';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Takes the line's change back out of memory when it could not be written. */
  undo?: () => void;
}

/**
 * An append-only JSON-lines file with group commit: lines of one turn (or of one sync) share one fdatasync; each resolves once on disk.
 * When a write fails, that batch and every line appended after it (they may build on it) are undone, newest first, and rejected.
 */
export class Journal {
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | null = null;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** Bytes durably written (a partly written batch is cut back to this). */
    public size: number,
    public lines: number,
  ) {}

  static async open(path: string, initialLines = 0): Promise<Journal> {
    const handle = await open(path, 'a', 0o600);
    const { size } = await handle.stat();
    return new Journal(path, handle, size, initialLines);
  }

  /** Appends one line (without its newline); resolves once it is durable, or calls `undo` and rejects when it cannot be written. */
  append(line: string, undo?: () => void): Promise<void> {
    this.pending.push(line + '\n');
    this.lines++;
    const done = new Promise<void>((resolve, reject) =>
      this.waiters.push({ resolve, reject, undo }),
    );
    if (!this.flushing)
      this.flushing = new Promise((r) => setImmediate(r)).then(() => this.flushLoop());
    return done;
  }

  /** Whether every line appended so far is durable (or was refused): nothing is waiting or being written. */
  get idle(): boolean {
    return this.flushing === null && this.pending.length === 0;
  }

  /** Resolves once every line appended so far is durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const chunk = this.pending.join('');
        const waiters = this.waiters;
        this.pending = [];
        this.waiters = [];
        const buffer = Buffer.from(chunk);
        try {
          // write() may write less than asked (a full disk): loop until the whole batch is out.
          let offset = 0;
          while (offset < buffer.length) {
            const { bytesWritten } = await this.handle.write(
              buffer,
              offset,
              buffer.length - offset,
            );
            if (bytesWritten === 0) throw new Error(`could not write to the journal ${this.path}`);
            offset += bytesWritten;
          }
          if (pausesAt('import-written') && `\n${chunk}`.includes('\n{"t":"replace"'))
            await pauseAt('import-written');
          await this.handle.datasync();
          this.size += buffer.length;
          for (const w of waiters) w.resolve();
        } catch (error) {
          // Cut a partly written batch off again, so later lines do not follow a torn one.
          await this.handle.truncate(this.size).catch(() => undefined);
          this.refuse([...waiters, ...this.takePending()], error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /** The lines appended after the batch being written: they are refused with it. */
  private takePending(): Waiter[] {
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    return waiters;
  }

  /** Undoes refused lines newest first (each undo restores what its change replaced), then rejects them. */
  private refuse(waiters: Waiter[], error: unknown): void {
    this.lines -= waiters.length;
    for (let i = waiters.length - 1; i >= 0; i--) waiters[i].undo?.();
    for (const w of waiters) w.reject(error);
  }

  async close(): Promise<void> {
    await this.drain();
    await this.handle.close();
  }
}
