/**
 * An incremental server-sent-events parser (the WHATWG event-stream format, `data` field only):
 * feed it text as it arrives, however the network cut it, and it returns the data of each
 * event completed so far. Lines end in LF, CRLF or CR (a CRLF split across chunks counts once);
 * comment lines (`:` keep-alives) and other fields are ignored; several `data` lines of one
 * event are joined with LF.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private pendingCr = false;

  /** Adds the next piece of the stream; returns the data of the events it completed. */
  push(text: string): string[] {
    const events: string[] = [];
    if (text === '') return events;
    let start = 0;
    if (this.pendingCr && text.startsWith('\n')) start = 1;
    this.pendingCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(this.buffer + text.slice(start, i), events);
      this.buffer = '';
      if (c === '\r') {
        if (i + 1 === text.length) this.pendingCr = true;
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.buffer += text.slice(start);
    return events;
  }

  /**
   * Ends the stream; returns the data of a last event that lacked its blank line. (The standard
   * drops such an event; backends that stop right after `data: [DONE]` are common enough to keep it.)
   */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer !== '') this.line(this.buffer, events);
    this.buffer = '';
    this.dispatch(events);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') return this.dispatch(events);
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.data.push(value);
  }

  // As the standard says, an event whose data is empty is not dispatched.
  private dispatch(events: string[]): void {
    const data = this.data.join('\n');
    this.data = [];
    if (data !== '') events.push(data);
  }
}
