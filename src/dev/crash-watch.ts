import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Node process of the plugin that ended with an error. */
export interface CrashReport {
  pid: number;
  /** Its command line (node's arguments: the script and what follows). */
  command: string;
  code: number;
  /** The first line of the uncaught exception, when there was one. */
  error: string | null;
}

/**
 * Preloaded into the plugin's Node processes (NODE_OPTIONS, which npm, tsx and nodemon pass on): an uncaught exception or a
 * non-zero exit appends a line to the report file synchronously (an exit handler cannot wait); a process a signal kills writes none.
 */
const PRELOAD = `'use strict';
const fs = require('node:fs');
const file = process.env.PLUGSMITH_DEV_CRASH_FILE;
if (file) {
  let failure = null;
  process.on('uncaughtExceptionMonitor', (error) => {
    try { failure = String(error && error.stack ? error.stack : error).split('\\n')[0]; } catch { failure = 'uncaught exception'; }
  });
  process.on('exit', (code) => {
    if (code === 0 && failure === null) return;
    try {
      fs.appendFileSync(file, JSON.stringify({ pid: process.pid, command: process.argv.slice(1).join(' '), code, error: failure }) + '\\n');
    } catch {}
  });
}
`;

const POLL_MS = 200;

/** Hears of crashes of the plugin's Node processes even under a watcher (`tsx watch`), whose own process lives on. */
export class CrashWatch {
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  private constructor(
    private readonly dir: string,
    private readonly preload: string,
    private readonly reportFile: string,
  ) {}

  static async create(): Promise<CrashWatch> {
    const dir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-'));
    const preload = join(dir, 'crash-report.cjs');
    const reportFile = join(dir, 'crashes.jsonl');
    await writeFile(preload, PRELOAD, { mode: 0o600 });
    await writeFile(reportFile, '', { mode: 0o600 });
    return new CrashWatch(dir, preload, reportFile);
  }

  /** The plugin's environment with the preload added to NODE_OPTIONS (the user's options kept). */
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const preloadFlag = `--require ${JSON.stringify(this.preload)}`;
    return {
      ...base,
      NODE_OPTIONS: base.NODE_OPTIONS ? `${base.NODE_OPTIONS} ${preloadFlag}` : preloadFlag,
      PLUGSMITH_DEV_CRASH_FILE: this.reportFile,
    };
  }

  /** Calls `onCrash` for each report from now on. */
  start(onCrash: (report: CrashReport) => void): void {
    this.timer = setInterval(() => void this.read(onCrash), POLL_MS).unref();
  }

  private async read(onCrash: (report: CrashReport) => void): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      // The file stays small (a line per crash): read whole, its complete lines past the offset are new.
      const text = await readFile(this.reportFile, 'utf8');
      const end = text.lastIndexOf('\n');
      if (end < this.offset) return;
      const lines = text.slice(this.offset, end).split('\n');
      this.offset = end + 1;
      for (const line of lines) {
        try {
          const report = JSON.parse(line) as CrashReport;
          if (typeof report.pid === 'number') onCrash(report);
        } catch {
          // a torn line: skip it
        }
      }
    } catch {
      // the folder is gone (closing)
    } finally {
      this.reading = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await rm(this.dir, { recursive: true, force: true });
  }
}
