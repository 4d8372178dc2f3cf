// The emulator in its own process with the options a suite needs:
// `node emulator-with.js '<EmulatorOptions as JSON>'` prints its URLs, credentials, pid and the
// URL of a memory sampler (servers/stats.js) as one JSON line.
// BENCH_DIST=<dir> loads another build (e.g. a patched copy of dist/) to compare a change.
import { startStats } from './stats.js';

const { startEmulator } = await import(
  process.env.BENCH_DIST
    ? `${process.env.BENCH_DIST}/emulator/index.js`
    : '../../dist/emulator/index.js'
);

const options = process.argv[2] ? JSON.parse(process.argv[2]) : {};
const started = Date.now();
const emu = await startEmulator(options);
const statsUrl = await startStats();
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
    startMs: Date.now() - started,
  }),
);
process.on('SIGTERM', () => emu.close().then(() => process.exit(0)));
