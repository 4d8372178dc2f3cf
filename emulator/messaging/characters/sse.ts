import { createParser, type EventSourceParser } from 'eventsource-parser';

/** The data of an OpenAI-compatible stream's server-sent events, however the network cut the text; empty data is skipped. */
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

  /** Ends the stream; returns a last event that lacked its blank line (the standard drops it; backends stopping after [DONE] need it). */
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
