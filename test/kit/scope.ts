import { onTestFinished } from 'vitest';

// How long what a test starts lives. Test files share their worker process (vitest.config.ts:
// `isolate: false`), so a helper module is loaded once per worker, not once per file: a hook it
// registered while loading would belong to the first file only. The file-level teardown is instead
// registered for every file by the setup file ./file-setup.ts.

const afterFile: Array<() => unknown> = [];

/** Runs `close` after the current test file's tests (and after the file's own afterAll hooks). */
export function ownForFile(close: () => unknown): void {
  afterFile.push(close);
}

/** Runs `close` when the current test finishes, or after the file's tests when called outside a test. */
export function own(close: () => unknown): void {
  try {
    onTestFinished(async () => {
      await close();
    });
  } catch {
    ownForFile(close);
  }
}

/** Closes what the file owns, last started first (./file-setup.ts calls it after each file). */
export async function closeFileScope(): Promise<void> {
  for (const close of afterFile.splice(0).reverse()) await close();
}
