// A webhook receiver in its own process, for sustained delivery: answers WEBHOOK_CHALLENGE (so
// plugins verify), answers 204 to every other event and counts them; `GET /_count` → { counted }.
// Out of the bench process, so autocannon there does not slow the receiver down, or the reverse.
import { createServer } from 'node:http';

let counted = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/_count') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ counted }));
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (body.includes('"WEBHOOK_CHALLENGE"')) {
      const event = JSON.parse(body.toString('utf8'));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ challenge: event.data.challenge }));
      return;
    }
    counted++;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}`, pid: process.pid }));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
