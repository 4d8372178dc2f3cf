// The plugin's own output (what the process plugsmith starts as the plugin writes to stdout and stderr):
// how one line is made safe to keep and show, and the bounded ring it is kept in. The CLI (capture) and
// the emulator (kept per plugin, linked to delivery attempts) use the same rules.

import {
  OUTPUT_MAX_BYTES,
  OUTPUT_MAX_LINES,
  OUTPUT_MAX_LINE_CHARS,
  type PluginOutputLine,
} from './contract/plugin-output.js';

export {
  OUTPUT_MAX_BATCH,
  OUTPUT_MAX_BYTES,
  OUTPUT_MAX_LINES,
  OUTPUT_MAX_LINE_CHARS,
} from './contract/plugin-output.js';

/** One line the plugin wrote: when it was read (ISO 8601, ms), from which stream, its text (escaped and scrubbed). */
export type OutputLine = PluginOutputLine;
/** The stream a line was written to. */
export type OutputStream = OutputLine['stream'];

/**
 * Credentials of the kinds plugsmith makes, recognised by their shape wherever they come from: user (`pst_`),
 * installation (`psi_`), API key (`psk_`) and admin (`psa_`) tokens, and webhook secrets (`whsec_`).
 */
const CREDENTIAL_SHAPE = /\b(pst|psi|psk|psa)_[A-Za-z0-9_-]{16,}|\bwhsec_[A-Za-z0-9+/=_-]{16,}/g;
/** A known secret shorter than this is not scrubbed as a plain string (it would hide ordinary words). */
const MIN_KNOWN_SECRET = 8;

/** The replacement of a scrubbed secret: its kind prefix kept, so a reader still sees which credential it was. */
function hidden(secret: string): string {
  const prefix = /^[A-Za-z]{1,8}_/.exec(secret)?.[0] ?? '';
  return `${prefix}[redacted]`;
}

/** Each credential of a known shape in `text`, hidden (`psk_[redacted]`): where one was typed into what a file keeps. */
export function credentialShapesIn(text: string): string[] {
  return [...text.matchAll(CREDENTIAL_SHAPE)].map((match) => hidden(match[0]));
}

/** Escapes terminal control characters (C0 but tab, DEL, C1, and the bidi controls): `\x1b` shows as `\u001b`. */
export function escapeControl(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters escaped
    /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A matcher of secrets: credential shapes, plus the exact strings given (those of 8 characters or more). */
export class SecretScrubber {
  private readonly known: string[];

  constructor(secrets: Iterable<string | null | undefined> = []) {
    const unique = new Set<string>();
    for (const secret of secrets)
      if (typeof secret === 'string' && secret.length >= MIN_KNOWN_SECRET) unique.add(secret);
    // Longest first: a secret that contains another is hidden whole.
    this.known = [...unique].sort((a, b) => b.length - a.length);
  }

  /** The text with every secret hidden. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.known)
      if (out.includes(secret)) out = out.split(secret).join(hidden(secret));
    return out.replace(CREDENTIAL_SHAPE, (match) => hidden(match));
  }
}

/** A raw line made safe to keep: secrets scrubbed, control characters escaped, cut to OUTPUT_MAX_LINE_CHARS. */
export function cleanLine(raw: string, scrubber: SecretScrubber): string {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  const clean = escapeControl(scrubber.scrub(text));
  if (clean.length <= OUTPUT_MAX_LINE_CHARS) return clean;
  const cut = clean.length - OUTPUT_MAX_LINE_CHARS;
  return `${clean.slice(0, OUTPUT_MAX_LINE_CHARS)} …[${cut} more characters cut]`;
}

/** A line in a ring, numbered: `seq` grows by one per line kept, and is the cursor followers read after. */
export type NumberedLine = OutputLine & { seq: number };

/** The newest lines of one plugin, bounded by count and bytes; older lines fall out first. */
export class OutputRing {
  private readonly lines: NumberedLine[] = [];
  private head = 0;
  private bytes = 0;
  private nextSeq = 1;

  constructor(
    private readonly maxLines = OUTPUT_MAX_LINES,
    private readonly maxBytes = OUTPUT_MAX_BYTES,
  ) {}

  /** Keeps a line, dropping the oldest past either bound; returns it numbered. */
  push(line: OutputLine): NumberedLine {
    const numbered = { ...line, seq: this.nextSeq++ };
    this.lines.push(numbered);
    this.bytes += sizeOf(numbered);
    while (this.size > this.maxLines || (this.bytes > this.maxBytes && this.size > 1)) {
      this.bytes -= sizeOf(this.lines[this.head]);
      this.head++;
    }
    // Compacts now and then, so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines.splice(0, this.head);
      this.head = 0;
    }
    return numbered;
  }

  get size(): number {
    return this.lines.length - this.head;
  }

  /** The number the next line will get (one past the newest). */
  get next(): number {
    return this.nextSeq;
  }

  /** The lines kept, oldest first. */
  all(): NumberedLine[] {
    return this.lines.slice(this.head);
  }

  /** Up to `limit` lines with `seq` above `after`, oldest first; `dropped` counts lines after the cursor that fell out. */
  after(after: number, limit: number): { lines: NumberedLine[]; dropped: number } {
    const kept = this.all();
    const oldest = kept[0]?.seq ?? this.nextSeq;
    const dropped = Math.max(0, oldest - after - 1);
    // seq is dense within the ring: the first line after the cursor is at a computed index.
    const start = Math.max(0, after + 1 - oldest);
    return { lines: kept.slice(start, start + limit), dropped };
  }

  clear(): void {
    this.lines.length = 0;
    this.head = 0;
    this.bytes = 0;
  }
}

function sizeOf(line: OutputLine): number {
  return Buffer.byteLength(line.text) + 40;
}
