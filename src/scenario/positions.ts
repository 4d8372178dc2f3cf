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

/** The index after the string that starts (with its `"`) at `from`. */
function stringEnd(text: string, from: number): number {
  let i = from + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * The position of each of `paths` in `text` (a valid JSON text), or of its nearest ancestor that the
 * text has (a missing field is shown where its object is): a property at its key, an item of a list
 * where it begins. Walked without recursion: a file may nest deeper than the stack.
 */
export function positionsOf(text: string, paths: string[]): Map<string, TextPosition> {
  const wanted = new Set(paths.flatMap(withAncestors));
  const offsets = new Map<string, number>();
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
      top.key = JSON.parse(text.slice(i, end)) as string;
      const path = top.path ? `${top.path}.${top.key}` : top.key;
      if (wanted.has(path)) offsets.set(path, i);
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
    if (top?.array && wanted.has(path)) offsets.set(path, i);
    if (c === '{' || c === '[') {
      stack.push({ array: c === '[', path, index: 0, key: null });
      i++;
    } else if (c === '"') i = stringEnd(text, i);
    else while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++;
  }
  const lineStarts = [0];
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) lineStarts.push(k + 1);
  const positionOf = (offset: number): TextPosition => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low] + 1 };
  };
  const out = new Map<string, TextPosition>();
  for (const path of paths) {
    const found = withAncestors(path).find((p) => offsets.has(p));
    if (found !== undefined) out.set(path, positionOf(offsets.get(found)!));
  }
  return out;
}
