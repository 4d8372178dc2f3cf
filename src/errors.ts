import { ProjectPathError } from './shared/project-file.js';

/** Exit codes, documented in docs/exit-codes.md. */
export const EXIT = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  VALIDATION: 5,
  CONFLICT: 6,
  NETWORK: 7,
  /** `scenario run --start`: the plugin exited, crashed or did not answer its webhook challenge in time; nothing was run. */
  PLUGIN_START: 8,
} as const;

/** Ends with this exit code, printing nothing: that of a command run for the user (`emulator exec`), whose output was seen. */
export class ExitWith extends Error {
  constructor(readonly exitCode: number) {
    super(`exit code ${exitCode}`);
  }
}

/** An error the user can fix; its message says how. Printed without a stack trace. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.USAGE,
  ) {
    super(message);
  }
}

/**
 * Rethrows a path the project-file rule refused (src/shared/project-file.ts) as a usage error naming the problem and the
 * fix (not found when the path names nothing); anything else as it is.
 */
export function refusedPath(error: unknown): never {
  if (error instanceof ProjectPathError)
    throw new UserError(
      `${error.message}: ${error.fix}`,
      error.missing ? EXIT.NOT_FOUND : EXIT.USAGE,
    );
  throw error;
}
