// The uploads baseline: a plain node:http server that streams every PUT body to a file on disk
// (in a temporary dir, the same file system as the emulator's embedded store) and answers 200.
import { createServer } from 'node:http';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startStats } from './stats.js';

const dir = await mkdtemp(join(tmpdir(), 'plugsmith-bench-sink-'));
let n = 0;
const server = createServer(async (req, res) => {
  if (req.method !== 'PUT') return res.writeHead(405).end();
  try {
    const path = join(dir, `object-${n++}`);
    await pipeline(req, createWriteStream(path));
    await rm(path); // like the emulator's store, the file was complete on disk; keep /tmp from filling up
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const statsUrl = await startStats();
console.log(
  JSON.stringify({ url: `http://127.0.0.1:${server.address().port}`, pid: process.pid, statsUrl }),
);
process.on('SIGTERM', () =>
  server.close(() => rm(dir, { recursive: true, force: true }).then(() => process.exit(0))),
);
