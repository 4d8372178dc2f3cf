import {
  FILE_NAME_PATTERN,
  FOLDER_PATTERN,
  MAX_FILE_NAME_LENGTH,
  MAX_FOLDER_LENGTH,
} from '#contract/requests';

/** The characters a file name may not hold (besides control characters), as people write them. */
const FORBIDDEN = ['/', '\\', ':', '*', '?', '"', '<', '>', '|'];

/** A character as a person can read it in a sentence: control characters by their code point. */
function shown(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f)
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')} (a control character)`;
  return character;
}

/** The forbidden characters a name holds, each once, in the order they first appear. */
function forbiddenIn(name: string): string[] {
  const found: string[] = [];
  for (const character of name) {
    const code = character.codePointAt(0) ?? 0;
    const control = code < 0x20 || code === 0x7f;
    if ((control || FORBIDDEN.includes(character)) && !found.includes(character))
      found.push(character);
  }
  return found;
}

/** "a, b and c". */
function listed(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const RULE = `a file name may not hold ${FORBIDDEN.join(' ')} nor a control character`;

/**
 * Why the emulator would refuse this file name, in a sentence a person reads (the same rule as the
 * contract's fileName pattern); null when it is accepted.
 */
export function fileNameProblem(name: string): string | null {
  if (name.length === 0) return 'the file has no name';
  if (name.length > MAX_FILE_NAME_LENGTH)
    return `the name has ${name.length} characters; at most ${MAX_FILE_NAME_LENGTH} are allowed`;
  if (name === '.' || name === '..') return `a file may not be named "${name}"`;
  const bad = forbiddenIn(name);
  if (bad.length > 0)
    return `the name holds ${listed(bad.map(shown))}, which ${bad.length === 1 ? 'is' : 'are'} not allowed: ${RULE}; rename the file and upload it again`;
  if (!new RegExp(FILE_NAME_PATTERN, 'u').test(name))
    return `the name is not accepted: ${RULE}, and it may not be "." or ".."`;
  return null;
}

/** Why the emulator would refuse this folder, in a sentence; null when it is accepted (or empty: no folder). */
export function folderProblem(folder: string): string | null {
  if (folder === '') return null;
  if (folder.length > MAX_FOLDER_LENGTH)
    return `the folder has ${folder.length} characters; at most ${MAX_FOLDER_LENGTH} are allowed`;
  const bad = forbiddenIn(folder).filter((c) => c !== '/');
  if (bad.length > 0)
    return `the folder holds ${listed(bad.map(shown))}, which ${bad.length === 1 ? 'is' : 'are'} not allowed: folder names are separated by single slashes, and ${RULE.replace('a file name', 'each')}`;
  if (!new RegExp(FOLDER_PATTERN, 'u').test(folder))
    return 'the folder is not accepted: names separated by single slashes (docs/2026), none of them "." or ".." or empty';
  return null;
}
