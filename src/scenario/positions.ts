// Where a JSON path of a scenario file is in its text, by line and column: a problem named
// `steps[2].expect[0].reply` is also at "line 14, column 9", which an editor jumps to.

/** A 1-based line and column (in UTF-16 code units, as editors count). */
export interface TextPosition {
  line: number;
  column: number;
}

interface Frame {
  array: boolean;
  path: string;
  index: number;
  /** The key whose value comes next (objects); null before the key is read. */
  key: string | null;
}

/** The JSON paths above `path` and itself: `steps[1].message.text`, `steps[1].message`, `steps[1]`, `steps`. */
function withAncestors(path: string): string[] {
  const out: string[] = [];
  let at = path;
  while (at) {
    out.push(at);
    const cut = Math.max(at.lastIndexOf('.'), at.lastIndexOf('['));
    at = cut > 0 ? at.slice(0, cut) : '';
  }
  return out;
}

/** The index after the string that starts (with its `"`) at `from`: the next `"` not escaped by a backslash. */
function stringEnd(text: string, from: number): number {
  let quote = text.indexOf('"', from + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length + 1;
}

/** What the walker meets: a key of an object, an item of a list, or an object or list opening at a depth. */
type Visit =
  | { kind: 'key' | 'item'; path: string; offset: number }
  | { kind: 'open'; path: string; offset: number; depth: number };

/**
 * Walks a JSON text without recursion (a file may nest deeper than the stack) and without parsing it, calling `visit`
 * for each key, list item and opening bracket with its JSON path, until `visit` returns true. Returns the visit that
 * stopped it, or null. The text is taken as JSON: on an invalid one, paths may be wrong, never the walk unbounded.
 */
function walk(text: string, visit: (at: Visit) => boolean): Visit | null {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === ':') {
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (c === ',') {
      if (top?.array) top.index++;
      else if (top) top.key = null;
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      stack.pop();
      i++;
      continue;
    }
    if (top && !top.array && top.key === null) {
      const end = stringEnd(text, i);
      top.key = keyOf(text.slice(i, end));
      const at: Visit = {
        kind: 'key',
        path: top.path ? `${top.path}.${top.key}` : top.key,
        offset: i,
      };
      if (visit(at)) return at;
      i = end;
      continue;
    }
    const path = !top
      ? ''
      : top.array
        ? `${top.path}[${top.index}]`
        : top.path
          ? `${top.path}.${top.key}`
          : String(top.key);
    if (top?.array) {
      const at: Visit = { kind: 'item', path, offset: i };
      if (visit(at)) return at;
    }
    if (c === '{' || c === '[') {
      const at: Visit = { kind: 'open', path, offset: i, depth: stack.length };
      if (visit(at)) return at;
      stack.push({ array: c === '[', path, index: 0, key: null });
      i++;
    } else if (c === '"') i = stringEnd(text, i);
    else while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++;
  }
  return null;
}

/** A key's text as JSON reads it; a key that is not a valid JSON string (the file will fail to parse) as written. */
function keyOf(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/** The start offset of each line of `text`, and a function from an offset to its line and column. */
function lineIndex(text: string): (offset: number) => TextPosition {
  const lineStarts = [0];
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) lineStarts.push(k + 1);
  return (offset) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low] + 1 };
  };
}

/** Whether a JSON text opens an object or list `limit` or more levels deep: brackets counted, strings skipped. */
function opensDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i) - 1;
    else if (c === 0x7b || c === 0x5b) {
      if (depth >= limit) return true;
      depth++;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The first object or list of a JSON text that opens `limit` or more levels deep (the top value is at level 0), with
 * its JSON path (`$` for the top) and position, or null. Read from the text before it is parsed: JSON.parse of an 8 MB
 * file nested four million deep takes seconds and a gigabyte, and every path below would be as long. The brackets are
 * counted first (a file of normal depth is not walked for its paths).
 */
export function nestedDeeperThan(
  text: string,
  limit: number,
): { path: string; position: TextPosition } | null {
  if (!opensDeeperThan(text, limit)) return null;
  const found = walk(text, (at) => at.kind === 'open' && at.depth >= limit);
  if (!found) return null;
  return { path: found.path || '$', position: lineIndex(text)(found.offset) };
}

/**
 * The position of each of `paths` in `text` (a valid JSON text), or of its nearest ancestor that the
 * text has (a missing field is shown where its object is): a property at its key, an item of a list
 * where it begins.
 */
export function positionsOf(text: string, paths: string[]): Map<string, TextPosition> {
  const wanted = new Set(paths.flatMap(withAncestors));
  const offsets = new Map<string, number>();
  walk(text, (at) => {
    if (at.kind !== 'open' && wanted.has(at.path)) offsets.set(at.path, at.offset);
    return false;
  });
  const positionOf = lineIndex(text);
  const out = new Map<string, TextPosition>();
  for (const path of paths) {
    const found = withAncestors(path).find((p) => offsets.has(p));
    if (found !== undefined) out.set(path, positionOf(offsets.get(found)!));
  }
  return out;
}
