import { literalText } from './references.js';

// What a recording must not write: the credentials an install was given (an API key, a database URL with its password).
// A scenario file is meant to be committed, and a recording is made of whatever the person installed while trying the
// plugin, real keys included. Each credential input is written as a `${env.NAME}` the file declares: its value comes from
// the environment of whoever replays it (`--allow-env NAME`), never from the file.

/** Input keys that name a credential (`openaiKey`, `apiToken`, `dbPassword`, `clientSecret`, `dsn`…); not `author`. */
const CREDENTIAL_KEY =
  /secret|token|passw(?:or)?d|pwd|api[-_]?key|[a-z0-9]key$|^key$|auth(?!or)|cookie|credential|private|dsn|conn(?:ection)?[-_]?str/i;

/**
 * Values whose form is a credential's, whatever their key: the emulator's tokens and webhook secrets, common API keys
 * (`sk-…`, `sk_live_…`, GitHub's `ghp_…`, Slack's `xox…-`, AWS access key ids), a JWT, and a URL with a password in it.
 */
const CREDENTIAL_FORM = new RegExp(
  [
    String.raw`\bps[atik]_[A-Za-z0-9_-]{16,}`,
    String.raw`\bwhsec_[A-Za-z0-9+/]{16,}`,
    String.raw`\b[sr]k[-_](?:live_|test_|proj-)?[A-Za-z0-9_-]{16,}`,
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
    String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
    String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
    String.raw`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
    String.raw`\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@`,
  ].join('|'),
  'i',
);

/** One input written as a variable: where it was, and the variable's name. */
export interface RecordedCredential {
  /** `inputs.openaiKey`, `inputs.db.url` */
  path: string;
  name: string;
}

/** `TEXT` as an environment variable's name: upper case, `_` between words, a letter first. */
function variableName(words: string[]): string {
  const name = words
    .join('_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Z]/.test(name) ? name : `INPUT_${name}`;
}

/**
 * An install's inputs as a recording writes them: each string that is a credential (by its key or its form) as
 * `${env.NAME}` (NAME from the install's name and the input's path, unique among `taken`), every other string as a
 * literal. Returns the inputs and the credentials replaced; their names are added to `taken`.
 */
export function recordedInputs(
  install: string,
  inputs: Record<string, unknown>,
  taken: Set<string>,
): { inputs: Record<string, unknown>; credentials: RecordedCredential[] } {
  const credentials: RecordedCredential[] = [];
  const walk = (value: unknown, path: string[], key: string): unknown => {
    if (typeof value === 'string') {
      if (value === '' || !(CREDENTIAL_KEY.test(key) || CREDENTIAL_FORM.test(value)))
        return literalText(value);
      const base = variableName([install, ...path]);
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
      taken.add(name);
      credentials.push({ path: ['inputs', ...path].join('.'), name });
      return `\${env.${name}}`;
    }
    if (Array.isArray(value))
      return value.map((item, index) => walk(item, [...path, String(index)], key));
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([inner, item]) => [inner, walk(item, [...path, inner], inner)]),
      );
    return value;
  };
  return { inputs: walk(inputs, [], '') as Record<string, unknown>, credentials };
}
