// A local webhook receiver (node:http, in the bench process): answers WEBHOOK_CHALLENGE so
// plugins verify, answers 200 to everything else, and tells waiters when an event arrives.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Starts the receiver on 127.0.0.1:0. */
export async function startReceiver() {
  const waiters = new Set();
  const state = { received: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      state.received++;
      const body = Buffer.concat(chunks);
      if (body.includes('"WEBHOOK_CHALLENGE"')) {
        const event = JSON.parse(body.toString('utf8'));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challenge: event.data.challenge }));
        return;
      }
      const event = JSON.parse(body.toString('utf8'));
      res.writeHead(204).end();
      for (const w of waiters) {
        if (w.match(event)) {
          waiters.delete(w);
          w.resolve({ event, at });
        }
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    state,
    /** Resolves with `{ event, at }` (at: performance.now() when the body had arrived) for the next matching event. */
    next(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const settle = (v) => {
          clearTimeout(timer);
          resolve(v);
        };
        const w = { match, resolve: settle };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no matching webhook within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(w);
      });
    },
    close: () => new Promise((resolve) => server.close(resolve).closeAllConnections()),
  };
}
