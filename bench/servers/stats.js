// A tiny side server for a benchmark child: `POST /reset` starts (or restarts) a window in which
// this process's RSS is sampled every 20 ms; `GET /` answers { rss, peak, base } (bytes) and cpuMs
// (user + system CPU time of the process so far). Nothing is sampled before the first reset,
// so suites that only read CPU time pay nothing.
import { createServer } from 'node:http';

/** Starts the sampler and its server; resolves with the URL to print. */
export async function startStats(intervalMs = 20) {
  let base = process.memoryUsage.rss();
  let peak = base;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
    return rss;
  };
  let sampling = false;
  const server = createServer((req, res) => {
    const rss = sample();
    if (req.method === 'POST') {
      base = peak = rss;
      if (!sampling) {
        sampling = true;
        setInterval(sample, intervalMs).unref();
      }
    }
    res.setHeader('content-type', 'application/json');
    const cpu = process.cpuUsage();
    res.end(JSON.stringify({ rss, peak, base, cpuMs: (cpu.user + cpu.system) / 1000 }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${server.address().port}`;
}
