// The emulator in its own process: `node emulator.js [dataDir]` prints its URLs and token as JSON.
import { startEmulator } from '../../dist/emulator/index.js';

const started = Date.now();
const dataDir = process.argv[2];
// The messaging bench follows one conversation with 200 clients of one API key: past the default cap of streams a key holds.
const messaging = { maxStreamsPerApiKey: 256 };
const emu = await startEmulator(dataDir ? { dataDir, messaging } : { messaging });
console.log(
  JSON.stringify({
    url: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token,
    apiKey: emu.apiKey,
    orgId: emu.orgId,
    adminToken: emu.adminToken,
    startMs: Date.now() - started,
  }),
);
process.on('SIGTERM', () => emu.close().then(() => process.exit(0)));
