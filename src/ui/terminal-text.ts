import type { Io } from './io.js';

// Platform text can hold control sequences (OSC 52 writes the clipboard, others move the cursor or hide text):
// every control character the CLI prints for people becomes visible (`\x1b`); only the CLI's own colours pass.
// Bidirectional controls (U+202E turns `exe.txt` into `txt.exe` on screen) and line separators become visible too (`\u202e`).

/** C0 controls, DEL and C1 controls; bidi marks, embeddings, overrides and isolates; U+2028 and U+2029. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** The same, but for line feed and tab, which lay out multi-line text. */
const CONTROL_BUT_LAYOUT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** An SGR sequence the style module writes (reset, bold, dim and its colours), captured; else a control but layout. */
const OWN_SGR_OR_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
  /(\u001b\[(?:(?:0|1|2|22|31|32|33|36|39)(?:;(?:0|1|2|22|31|32|33|36|39))*)?m)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `\x1b` for a C0 or C1 control, `\u202e` for the others. */
const visible = (c: string) => {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** One-line text for a table cell or a `key  value` line: every control character, line breaks included, made visible. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Multi-line text (a message, a log line): controls made visible, line feeds and tabs kept. */
export function escapeControlsKeepLayout(text: string): string {
  return text.replace(CONTROL_BUT_LAYOUT, visible);
}

/** Text on its way to a person's terminal: the CLI's own colours kept, every other control made visible. */
export function terminalText(text: string): string {
  return text.replace(
    OWN_SGR_OR_CONTROL,
    (match, sgr: string | undefined) => sgr ?? visible(match),
  );
}

/** Stdout under --json: controls but LF and tab become `\u00XX` (JSON.stringify leaves DEL and C1 raw; escaped, they parse the same). */
function jsonText(text: string): string {
  return text.replace(
    CONTROL_BUT_LAYOUT,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A terminal stream as `Io` has them (stderr's `columns` is absent there, but a terminal has it too). */
type Stream = Io['stdout'] | (Io['stderr'] & { columns?: number });

/** Each filtered stream's own stream, for `rawStream`. */
const underlying = new WeakMap<Stream, Stream>();

/** A stream whose `write` passes text through `filter`; everything else is the stream itself. */
function filtered<S extends Stream>(stream: S, filter: (text: string) => string): S {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text =
      typeof chunk === 'string'
        ? chunk
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : chunk;
    return (stream.write as (...args: unknown[]) => boolean)(
      typeof text === 'string' ? filter(text) : text,
      ...rest,
    );
  };
  const proxy = new Proxy(stream, {
    get(target, key) {
      if (key === 'write') return write;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
  underlying.set(proxy, stream);
  return proxy;
}

/** The Io every command prints through: control characters made visible (with --json, stdout gets `jsonText`). */
export function terminalSafeIo(io: Io, options: { json: boolean }): Io {
  return {
    ...io,
    stdout: filtered(io.stdout, options.json ? jsonText : terminalText),
    stderr: filtered(io.stderr, terminalText),
  };
}

/** The stream under a filtered one, for code that draws the terminal itself and escapes its own text. */
export function rawStream(stream: Stream): Stream {
  return underlying.get(stream) ?? stream;
}
