// A diagnostic twin of emulator-with.js: the same child emulator, printing to stderr once a second its
// event-loop delay (p50, p99, max), the delivery attempts logged, GC time and heap. Use it to see
// whether something holds the event loop (a delivery storm starving the API looked like p50 300 ms).
// `node emu-lag.js '<EmulatorOptions as JSON>'`; BENCH_DIST as in emulator-with.js.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { startStats } from './stats.js';

const dist = process.env.BENCH_DIST ?? '../../dist';
const { startEmulator } = await import(`${dist}/emulator/index.js`);
const { emulatorInternals } = await import(`${dist}/emulator/internals.js`);
const emu = await startEmulator(process.argv[2] ? JSON.parse(process.argv[2]) : {});
const statsUrl = await startStats();
let gcMs = 0;
let gcMax = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration;
    gcMax = Math.max(gcMax, e.duration);
  }
}).observe({ entryTypes: ['gc'] });
let attempts = 0;
emulatorInternals(emu).dispatcher.onAttempt(() => attempts++);
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
setInterval(() => {
  const ms = (ns) => (ns / 1e6).toFixed(1);
  process.stderr.write(
    `loop delay p50 ${ms(delay.percentile(50))} p99 ${ms(delay.percentile(99))} max ${ms(delay.max)} ms; attempts ${attempts}; gc ${gcMs.toFixed(0)} ms (max ${gcMax.toFixed(0)}); heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB\n`,
  );
  delay.reset();
  attempts = gcMs = gcMax = 0;
}, 1000).unref();
console.log(
  JSON.stringify({
    url: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token,
    apiKey: emu.apiKey,
    orgId: emu.orgId,
    adminToken: emu.adminToken,
    pid: process.pid,
    statsUrl,
  }),
);
process.on('SIGTERM', () => emu.close().then(() => process.exit(0)));
