// The emulator in its own process: `node emulator.js [dataDir]` prints its URLs and token as JSON.
import { startEmulator } from '../../dist/emulator/index.js';

const started = Date.now();
const dataDir = process.argv[2];
const emu = await startEmulator(dataDir ? { dataDir } : {});
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
