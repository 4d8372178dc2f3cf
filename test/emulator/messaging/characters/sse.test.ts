import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseParser } from '../../../../emulator/messaging/characters/sse.js';

function parseAll(pieces: string[]): string[] {
  const parser = new SseParser();
  return [...pieces.flatMap((p) => parser.push(p)), ...parser.end()];
}

describe('SseParser', () => {
  it('returns the data of each event, ignoring comments and other fields', () => {
    const text =
      ': keep-alive\n\nevent: message\nid: 7\ndata: {"a":1}\n\ndata:no-space\n\nretry: 10\n\n';
    expect(parseAll([text])).toEqual(['{"a":1}', 'no-space']);
  });

  it('joins several data lines of one event', () => {
    expect(parseAll(['data: one\ndata: two\n\n'])).toEqual(['one\ntwo']);
  });

  it('accepts LF, CRLF and CR line ends, a CRLF split across pieces counting once', () => {
    expect(parseAll(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).toEqual(['a', 'b', 'c']);
    expect(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual(['a\nb']);
  });

  it('keeps a last event that lacks its blank line', () => {
    expect(parseAll(['data: x\n\ndata: [DONE]'])).toEqual(['x', '[DONE]']);
  });

  it('does not dispatch events with empty data', () => {
    expect(parseAll(['data:\n\n\n\ndata: y\n\n'])).toEqual(['y']);
  });

  it('gives the same events however the stream is cut', () => {
    const stream =
      ': hi\r\ndata: {"choices":[{"delta":{"content":"hé 😀"}}]}\r\n\r\ndata: a\ndata: b\n\ndata: c\r\rdata: [DONE]\n\n';
    const whole = parseAll([stream]);
    expect(whole).toEqual(['{"choices":[{"delta":{"content":"hé 😀"}}]}', 'a\nb', 'c', '[DONE]']);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
          const pieces = points.slice(1).map((end, i) => stream.slice(points[i], end));
          expect(parseAll(pieces)).toEqual(whole);
        },
      ),
    );
  });
});
