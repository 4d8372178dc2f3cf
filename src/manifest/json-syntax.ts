/** The first syntax error of a JSON text (1-based line and column), or null: Node 20's JSON.parse gives no position for some. */
export function jsonSyntaxProblem(
  text: string,
): { line: number; column: number; message: string } | null {
  // Some editors on Windows save one: JSON.parse refuses it, and it shows in no editor.
  if (text.startsWith('\ufeff'))
    return {
      line: 1,
      column: 1,
      message: 'a byte-order mark (U+FEFF) starts the file: save it as UTF-8 without one',
    };
  let i = 0;
  const fail = (expected: string): never => {
    throw Object.assign(
      new Error(
        i >= text.length
          ? `unexpected end of the file (expected ${expected})`
          : `unexpected ${JSON.stringify(text[i])} (expected ${expected})`,
      ),
      { at: i },
    );
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`"${word}"`);
      i++;
    }
  };
  const string = () => {
    if (text[i] !== '"') fail('a double-quoted string');
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20)
        fail('the closing " of the string (control characters must be escaped)');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          for (let k = 1; k <= 4; k++)
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i += k;
              fail('4 hex digits after \\u');
            }
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? 'x'))
          fail('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX');
      }
      i++;
    }
    if (i >= text.length) fail('the closing " of the string');
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail('a value');
    i += match![0].length;
  };
  /** The members of an object or array after its opening bracket, through `close`; a trailing comma is refused. */
  const members = (close: string, member: () => void, noun: string, last: string) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      space();
      if (text[i] === close) return void i++;
      if (text[i] !== ',') fail(`"," or "${close}" after the ${last}`);
      i++;
      space();
      if (text[i] === close) fail(`another ${noun} after "," (a trailing comma is not JSON)`);
    }
  };
  const property = () => {
    string();
    space();
    if (text[i] !== ':') fail('":" after the property name');
    i++;
    value();
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === '{') members('}', property, 'property', 'property value');
    else if (ch === '[') members(']', value, 'item', 'item');
    else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    space();
    if (i < text.length) fail('the end of the file after the value');
    return null;
  } catch (error) {
    const at = (error as { at: number }).at;
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - (before.lastIndexOf('\n') + 1) + 1;
    return { line, column, message: (error as Error).message };
  }
}
