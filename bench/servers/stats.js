// A tiny side server for a benchmark child: samples this process's RSS every 20 ms and answers
// `GET /` with { rss, peak, base } (bytes) and cpuMs (user + system CPU time of the process so far);
// `POST /reset` sets base and peak to the current RSS.
// It runs inside the measured process, so the parent can read peak memory growth over a window.
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
  setInterval(sample, intervalMs).unref();
  const server = createServer((req, res) => {
    const rss = sample();
    if (req.method === 'POST') base = peak = rss;
    res.setHeader('content-type', 'application/json');
    const cpu = process.cpuUsage();
    res.end(JSON.stringify({ rss, peak, base, cpuMs: (cpu.user + cpu.system) / 1000 }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${server.address().port}`;
}
