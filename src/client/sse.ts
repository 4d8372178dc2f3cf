/** One server-sent event: its name, its data parsed as JSON (or the raw text when not JSON). */
export interface ServerSentEvent<T = unknown> {
  /** The `event:` field; `message` when the server sent none. */
  event: string;
  data: T;
  /** The `data:` lines joined with newlines, as sent. */
  rawData: string;
  /** The last `id:` seen, if any (what to send as Last-Event-ID on reconnection). */
  id?: string;
}

/**
 * Incremental parser of the text/event-stream format (WHATWG HTML §9.2): feed it text as it
 * arrives, in chunks split anywhere, and it returns the events each chunk completes.
 */
export class SseParser {
  /** The reconnection time the server asked for with `retry:`, in milliseconds. */
  retryMs: number | undefined;
  /** The last event id, which persists across events as the format says. */
  lastEventId: string | undefined;

  private buffer = '';
  private started = false;
  private eventName = '';
  private dataLines: string[] = [];

  /** Parses a chunk and returns the events it completed. */
  push(chunk: string): ServerSentEvent[] {
    let text = this.buffer + chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (c === '\r' && i === text.length - 1) break;
      this.line(text.slice(start, i), events);
      if (c === '\r' && text[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buffer = text.slice(start);
    return events;
  }

  private line(line: string, events: ServerSentEvent[]): void {
    if (line === '') return this.dispatch(events);
    if (line.startsWith(':')) return; // a comment, often a keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventName = value;
        break;
      case 'data':
        this.dataLines.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
      // Unknown fields are ignored, as the format requires.
    }
  }

  private dispatch(events: ServerSentEvent[]): void {
    const name = this.eventName;
    const lines = this.dataLines;
    this.eventName = '';
    this.dataLines = [];
    if (lines.length === 0) return;
    const rawData = lines.join('\n');
    events.push({ event: name === '' ? 'message' : name, data: parseData(rawData), rawData, id: this.lastEventId });
  }
}

function parseData(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
