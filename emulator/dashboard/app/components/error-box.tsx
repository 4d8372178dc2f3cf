import { ApiFailure } from '../api.js';

/** An API error as the user reads it: the message, its type and status, and every `details` entry. */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const failure = error instanceof ApiFailure ? error : null;
  return (
    <div className="error" role="alert">
      <strong>{failure ? `${failure.status} ${failure.type}` : 'Error'}</strong> {error instanceof Error ? error.message : String(error)}
      {failure && failure.details.length > 0 && (
        <ul>
          {failure.details.map((d, i) => (
            <li key={i}>
              {d.path && d.path.length > 0 ? <code>{d.path.join('.')}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
