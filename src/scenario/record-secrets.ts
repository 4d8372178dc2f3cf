import { literalText } from './references.js';

// What a recording must not write: the credentials an install was given (an API key, a database URL with its password).
// A scenario file is meant to be committed, and a recording is made of whatever the person installed while trying the
// plugin, real keys included. Each credential input is written as a `${env.NAME}` the file declares: its value comes from
// the environment of whoever replays it (`--allow-env NAME`), never from the file.

/** The words of a key, lower case: `openaiKey`, `openai_key` and `OPENAI-KEY` are all `openai key`. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Last words of a key that name a credential (`apiToken`, `dbPassword`, `clientSecret`, `Authorization`, `secrets`). */
const CREDENTIAL_WORDS = new Set([
  'secret',
  'secrets',
  'token',
  'tokens',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'pass',
  'pwd',
  'key',
  'keys',
  'apikey',
  'authorization',
  'auth',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'dsn',
]);

/** A `…key` that names no secret: `sortKey`, `publicKey`, `primaryKey`. */
const PLAIN_KEYS = new Set([
  'sort',
  'public',
  'primary',
  'partition',
  'foreign',
  'cache',
  'idempotency',
  'lookup',
  'group',
  'map',
]);

/** Whether a key names a credential: by its last word (`tokenUrl` and `authMode` do not; `author` is no word of them). */
function isCredentialKey(key: string): boolean {
  const words = wordsOf(key);
  const last = words.at(-1);
  if (last === undefined || !CREDENTIAL_WORDS.has(last)) return false;
  return !((last === 'key' || last === 'keys') && PLAIN_KEYS.has(words.at(-2) ?? ''));
}

/**
 * Values whose form is a credential's, whatever their key: the emulator's tokens and webhook secrets, common API keys
 * (`sk-…`, `sk_live_…`, GitHub's `ghp_…`, Slack's `xox…-`, AWS access key ids), a JWT, and a URL with a password in it.
 * Each quantifier is bounded, and only values up to 4,096 characters are looked at: no input makes the test slow.
 */
const CREDENTIAL_FORM = new RegExp(
  [
    String.raw`\bps[atik]_[A-Za-z0-9_-]{16,256}`,
    String.raw`\bwhsec_[A-Za-z0-9+/]{16,256}`,
    String.raw`\b[sr]k[-_](?:live_|test_|proj-)?[A-Za-z0-9_-]{16,256}`,
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,256}`,
    String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,256}`,
    String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
    String.raw`\beyJ[A-Za-z0-9_-]{8,2048}\.[A-Za-z0-9_-]{8,2048}\.[A-Za-z0-9_-]{8,2048}`,
    String.raw`\b[a-z][a-z0-9+.-]{0,31}://[^\s/:@]{0,256}:[^\s/@]{1,256}@`,
  ].join('|'),
  'i',
);

/** The longest value whose form is looked at. */
const FORM_LOOKED_AT = 4096;

/** Whether a value has a credential's form. */
function looksLikeCredential(value: string): boolean {
  return value.length <= FORM_LOOKED_AT && CREDENTIAL_FORM.test(value);
}

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
  // Never one of plugsmith's own variables (an install named "plugsmith" with a "token" input), and a letter first.
  return /^[A-Z]/.test(name) && !name.startsWith('PLUGSMITH_') ? name : `INPUT_${name}`;
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
  // `secret`: under a key that names a credential (`secrets: { openai: "…" }` holds credentials at every depth).
  const walk = (value: unknown, path: string[], secret: boolean): unknown => {
    if (typeof value === 'string') {
      if (value === '' || !(secret || looksLikeCredential(value))) return literalText(value);
      const base = variableName([install, ...path]);
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
      taken.add(name);
      credentials.push({ path: ['inputs', ...path].join('.'), name });
      return `\${env.${name}}`;
    }
    if (Array.isArray(value))
      return value.map((item, index) => walk(item, [...path, String(index)], secret));
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([inner, item]) => [
          inner,
          walk(item, [...path, inner], secret || isCredentialKey(inner)),
        ]),
      );
    return value;
  };
  return { inputs: walk(inputs, [], false) as Record<string, unknown>, credentials };
}
