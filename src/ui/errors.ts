import { UserError, EXIT } from '../errors.js';

/** The exit code for an error: a UserError's own, an API error's by status, network 7, else 1. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UserError) return error.exitCode;
  const e = error as { status?: number; name?: string; code?: string };
  if (typeof e.status === 'number') {
    if (e.status === 401 || e.status === 403) return EXIT.AUTH;
    if (e.status === 404) return EXIT.NOT_FOUND;
    if (e.status === 409) return EXIT.CONFLICT;
    if (e.status === 400 || e.status === 413 || e.status === 415 || e.status === 422)
      return EXIT.VALIDATION;
  }
  if (e.name === 'NetworkError') return EXIT.NETWORK;
  return EXIT.UNEXPECTED;
}

/** The message printed for an error: short for the user's mistakes, with a stack under --verbose. */
export function formatError(error: unknown, { verbose }: { verbose: boolean }): string {
  if (error instanceof UserError) return `error: ${error.message}`;
  const e = error as Error & {
    status?: number;
    type?: string;
    details?: Array<{ path?: string[]; message?: string }>;
  };
  let text = `error: ${e?.message ?? String(error)}`;
  // An API error names its HTTP status and type, so scripts' logs say what the server said.
  if (e?.name === 'ApiError' && typeof e.status === 'number')
    text += ` (HTTP ${e.status}${e.type ? ` ${e.type}` : ''})`;
  if (Array.isArray(e?.details)) {
    for (const d of e.details)
      text += `\n  - ${d.path?.length ? d.path.join('.') + ': ' : ''}${d.message ?? ''}`;
  }
  const hint = hintFor(e);
  if (hint) text += `\n${hint}`;
  if (verbose && e?.stack) text += `\n${e.stack}`;
  return text;
}

/** What to do next, for the errors whose cure is always the same. */
function hintFor(
  e: { name?: string; status?: number; code?: string } | undefined,
): string | undefined {
  if (e?.name === 'NetworkError' && e.code === 'ETIMEDOUT')
    return 'the server took the connection but did not answer in time: check that it is the platform (or emulator) and that it is not stuck; --timeout SECONDS (or PLUGSMITH_TIMEOUT) waits longer';
  if (e?.name === 'NetworkError')
    return 'is the server running and the URL right? (`plugsmith doctor` checks; the local emulator starts with `plugsmith emulator start`)';
  if (e?.name === 'ApiError' && e.status === 401)
    return 'the credentials were refused: run `plugsmith login` again, or check PLUGSMITH_TOKEN or PLUGSMITH_API_KEY (`plugsmith whoami`)';
  return undefined;
}
