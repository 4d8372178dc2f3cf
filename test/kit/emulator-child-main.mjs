// A child process that runs the BUILT emulator (dist/) on a data dir, for crash and lock tests:
// node emulator-child-main.mjs <path of dist/emulator/index.js> <dataDir> [compactAfterLines]
// Prints one JSON line {url, token, orgId, adminToken, pid} once listening; stops cleanly on SIGTERM.
import { pathToFileURL } from 'node:url';

const [entry, dataDir, compactLines] = process.argv.slice(2);
const { startEmulator } = await import(pathToFileURL(entry).href);
try {
  const emu = await startEmulator({
    dataDir,
    store: compactLines ? { compactAfter: { lines: Number(compactLines) } } : undefined,
  });
  process.stdout.write(
    JSON.stringify({
      url: emu.url,
      token: emu.token,
      orgId: emu.orgId,
      adminToken: emu.adminToken,
      pid: process.pid,
    }) + '\n',
  );
  process.on('SIGTERM', () => {
    emu.close().then(() => process.exit(0));
  });
} catch (error) {
  process.stderr.write(`${error?.name}: ${error?.message}\n`);
  process.exit(3);
}
