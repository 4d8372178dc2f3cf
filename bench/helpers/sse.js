// Event-stream clients for the messaging suite, on raw node:http sockets (one per client).
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Opens `GET <url>` as an event stream; resolves with the response once the headers are in. */
function open(url, apiKey, onChunk) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent: false, headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${url} → ${res.statusCode}`));
        res.on('data', onChunk);
        resolve({ close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * A client that parses every frame: `next(match)` resolves with `{ event, data, at }` for the
 * next `event:` frame whose parsed data matches. For small replies (latency measurements).
 */
export async function parsingClient(url, apiKey) {
  let buffer = '';
  const waiters = new Set();
  const stream = await open(url, apiKey, (chunk) => {
    const at = performance.now();
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const dataLine = /^data: (.*)$/m.exec(frame)?.[1];
      if (!event || dataLine === undefined) continue;
      const data = JSON.parse(dataLine);
      for (const w of waiters) {
        if (w.event === event && w.match(data)) {
          waiters.delete(w);
          w.resolve({ event, data, at });
        }
      }
    }
  });
  return {
    next(event, match = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const settle = (v) => {
          clearTimeout(timer);
          resolve(v);
        };
        const w = { event, match, resolve: settle };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no ${event} frame within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(w);
      });
    },
    close: stream.close,
  };
}

/** Occurrences of `needle` in `chunk`, counting one that straddles the end of `prevTail` and the start of `chunk`. */
function countIn(needle, prevTail, chunk) {
  let n = 0;
  for (let i = chunk.indexOf(needle); i !== -1; i = chunk.indexOf(needle, i + needle.length)) n++;
  if (prevTail.length > 0) {
    const seam = Buffer.concat([prevTail, chunk.subarray(0, needle.length - 1)]);
    if (seam.indexOf(needle) !== -1) n++;
  }
  return n;
}

const FRAME = Buffer.from('event: CHARACTER_MESSAGE_SENT\n');
const FINAL = Buffer.from('"isStreaming":false');

/**
 * A client that only counts CHARACTER_MESSAGE_SENT frames and notes when the final packet
 * (`"isStreaming":false`) arrives, scanning raw bytes: 200 of them must keep up with a
 * 500-packet reply whose every packet carries the whole text so far.
 */
export async function countingClient(url, apiKey) {
  const state = { frames: 0, finals: 0, firstAt: null, finalAt: null, bytes: 0, connected: false };
  let tail = Buffer.alloc(0);
  let resolveConnected;
  const connected = new Promise((r) => (resolveConnected = r));
  const keep = Math.max(FRAME.length, FINAL.length) - 1;
  const stream = await open(url, apiKey, (chunk) => {
    const at = performance.now();
    state.bytes += chunk.length;
    if (!state.connected) {
      state.connected = true;
      resolveConnected();
    }
    const frames = countIn(
      FRAME,
      tail.subarray(Math.max(0, tail.length - (FRAME.length - 1))),
      chunk,
    );
    if (frames > 0 && state.firstAt === null) state.firstAt = at;
    state.frames += frames;
    const finals = countIn(
      FINAL,
      tail.subarray(Math.max(0, tail.length - (FINAL.length - 1))),
      chunk,
    );
    if (finals > 0) {
      state.finals += finals;
      state.finalAt = at;
      state.onFinal?.();
    }
    tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - keep)));
  });
  return { state, connected, close: stream.close };
}
