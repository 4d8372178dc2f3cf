import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

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

/** Incremental parser of text/event-stream (WHATWG HTML §9.2): returns the events each chunk completes, data parsed as JSON where it is. */
export class SseParser {
  /** The reconnection time the server asked for with `retry:`, in milliseconds. */
  retryMs: number | undefined;
  /** The last event id, which persists across events as the format says. */
  lastEventId: string | undefined;

  private readonly parser: EventSourceParser;
  private started = false;
  private completed: ServerSentEvent[] = [];

  constructor() {
    this.parser = createParser({
      onEvent: (message) => this.completed.push(this.toEvent(message)),
      onRetry: (ms) => {
        this.retryMs = ms;
      },
    });
  }

  /** Parses a chunk and returns the events it completed. */
  push(chunk: string): ServerSentEvent[] {
    // The library strips a BOM given as UTF-8 bytes; decoded text carries it as U+FEFF.
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    this.parser.feed(chunk);
    const events = this.completed;
    this.completed = [];
    return events;
  }

  private toEvent(message: EventSourceMessage): ServerSentEvent {
    // The library reports the id of the event only; the format keeps the last one until replaced.
    if (message.id !== undefined) this.lastEventId = message.id;
    return {
      event: message.event ?? 'message',
      data: jsonOrText(message.data),
      rawData: message.data,
      id: this.lastEventId,
    };
  }
}

/** The text parsed as JSON, or the text itself when it is not JSON. */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
