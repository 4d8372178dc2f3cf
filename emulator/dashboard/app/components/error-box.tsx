import { ApiFailure } from '../api.js';

/** An API error as the user reads it: the message, its type and status, and every `details` entry. */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const failure = error instanceof ApiFailure ? error : null;
  // fetch's own failure ("Failed to fetch"): no answer at all, so say what that means.
  if (!failure && error instanceof TypeError && /fetch|network/i.test(error.message)) {
    return (
      <div className="error" role="alert">
        <strong>Emulator unreachable</strong> No answer from the emulator at {location.host}: it may
        have stopped or restarted. Start it again with <code>plugsmith emulator start</code>; this
        page reconnects by itself.
      </div>
    );
  }
  return (
    <div className="error" role="alert">
      <strong>{failure ? `${failure.status} ${failure.type}` : 'Error'}</strong>{' '}
      {error instanceof Error ? error.message : String(error)}
      {failure && failure.details.length > 0 && (
        <ul>
          {failure.details.map((d, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: one error's details, rendered whole and never reordered
            <li key={i}>
              {d.path && d.path.length > 0 ? <code>{d.path.join('.')}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
