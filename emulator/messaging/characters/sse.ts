import { createParser, type EventSourceParser } from 'eventsource-parser';

/**
 * The data of the server-sent events of an OpenAI-compatible stream (by `eventsource-parser`),
 * however the network cut the text; events with empty data carry no chunk and are skipped.
 */
export class SseParser {
  private readonly parser: EventSourceParser;
  private completed: string[] = [];

  constructor() {
    this.parser = createParser({
      onEvent: (message) => {
        if (message.data !== '') this.completed.push(message.data);
      },
    });
  }

  /** Adds the next piece of the stream; returns the data of the events it completed. */
  push(text: string): string[] {
    this.parser.feed(text);
    return this.take();
  }

  /**
   * Ends the stream; returns the data of a last event that lacked its blank line. (The standard
   * drops such an event; backends that stop right after `data: [DONE]` are common enough to keep it.)
   */
  end(): string[] {
    // A line end finishes a pending line (a lone CR before it becomes CRLF), the blank line dispatches.
    this.parser.feed('\n\n');
    this.parser.reset();
    return this.take();
  }

  private take(): string[] {
    const events = this.completed;
    this.completed = [];
    return events;
  }
}
