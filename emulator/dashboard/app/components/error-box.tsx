import { ApiFailure } from '../api.js';

/** A field the emulator checks with a long pattern, and the rule in words. */
const PATTERN_RULES: Record<string, string> = {
  fileName:
    'is not an accepted file name: it may not hold / \\ : * ? " < > | nor a control character, nor be "." or ".."',
  folder:
    'is not an accepted folder: names separated by single slashes, none holding \\ : * ? " < > | or a control character, none "." or ".."',
};

/** A detail's message as a person reads it: a long regular expression is replaced by the rule it checks. */
function readable(detail: { path?: string[]; message?: string }): string | undefined {
  const message = detail.message;
  if (!message || !/pattern/.test(message)) return message;
  const field = detail.path?.[detail.path.length - 1] ?? '';
  const rule = PATTERN_RULES[field];
  if (rule) return rule;
  // Short patterns say what they want; long ones are shown as a sentence, not as a regex.
  return message.length > 80 ? 'is not in the accepted form' : message;
}

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
              {d.path && d.path.length > 0 ? <code>{d.path.join('.')}</code> : null} {readable(d)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
