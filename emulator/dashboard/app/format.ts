/** The dashboard's one date format: 2026-11-26 06:12:53 (local time, 24 h). */
export function absoluteTime(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return String(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "8 s ago", "in 8 s", "3 min ago", "2 h ago", "4 d ago". */
export function relativeTime(iso: string | Date, now = Date.now()): string {
  const at = (typeof iso === 'string' ? new Date(iso) : iso).getTime();
  if (Number.isNaN(at)) return '';
  const diff = at - now;
  const s = Math.round(Math.abs(diff) / 1000);
  const text =
    s < 60
      ? `${s} s`
      : s < 3600
        ? `${Math.round(s / 60)} min`
        : s < 86_400
          ? `${Math.round(s / 3600)} h`
          : `${Math.round(s / 86_400)} d`;
  return diff > 0 ? `in ${text}` : `${text} ago`;
}

/** "2026-11-26 06:12:53 (3 min ago)". */
export function when(iso: string | Date): string {
  return `${absoluteTime(iso)} (${relativeTime(iso)})`;
}

/** Bytes as people read them: 512 B, 1.5 KB, 3.2 MB. */
export function humanSize(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** "1 packet", "2 packets". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/** Right-to-left letters and the explicit direction controls (embeddings, overrides, isolates, marks). */
const BIDI_SENSITIVE =
  /[\u0590-\u08ff\u200e\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufefc]/;

/**
 * User text made safe to show inside a plain-text line (an option, an accessible name, a title):
 * text that holds right-to-left letters or direction controls is wrapped in FIRST STRONG
 * ISOLATE … POP DIRECTIONAL ISOLATE, so a U+202E in a plugin name cannot reverse the id printed
 * beside it. Text without them is left as it is (nothing in it can reorder its neighbours).
 * In markup, wrap user text in `<bdi>` instead.
 */
export function isolated(text: string): string {
  return BIDI_SENSITIVE.test(text) ? `\u2068${text}\u2069` : text;
}
