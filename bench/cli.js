// Issue 6's and 16's speed targets: cold start of `plugsmith --help`, `--version` and of `plugsmith plugins list
// --json` against a local emulator (child process), each against `node -e 0` in the same run:
// median of 20, the three commands interleaved so they share the machine's load.
import { mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, root, startServer, timeCommand } from './lib.js';
import { apiClient } from './helpers/api.js';

export default async function cli({ quick }) {
  const rows = [];
  const runs = quick ? 10 : 20;
  const emu = await startServer('emulator-with.js', [JSON.stringify({})]);
  // An empty config dir: the figures must not depend on this machine's profiles.
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-bench-config-'));
  try {
    // A page's worth of plugins to list (the table and JSON output have something to do).
    const call = apiClient(emu.url, emu.token);
    for (let i = 0; i < 20; i++)
      await call('POST', '/api/plugins', {
        orgId: emu.orgId,
        name: `cli bench ${i}`,
        type: 'APP',
        tags: ['bench'],
      });
    const bin = join(root, 'bin/plugsmith.js');
    const env = {
      ...process.env,
      PLUGSMITH_CONFIG_DIR: configDir,
      PLUGSMITH_BASE_URL: emu.url,
      PLUGSMITH_TOKEN: emu.token,
      NO_COLOR: '1',
      CI: 'true',
    };
    const listArgs = [bin, 'plugins', 'list', '--org', emu.orgId, '--json'];
    // Check once that the command works and talks to the emulator.
    const out = JSON.parse(execFileSync(process.execPath, listArgs, { env, encoding: 'utf8' }));
    if (!Array.isArray(out))
      throw new Error(`plugins list --json printed ${JSON.stringify(out).slice(0, 200)}`);

    const node = [];
    const help = [];
    const version = [];
    const list = [];
    const undici = [];
    for (let i = 0; i < runs; i++) {
      node.push(await timeCommand(process.execPath, ['-e', '0'], { env }));
      undici.push(
        await timeCommand(process.execPath, ['-e', "require('undici')"], { env, cwd: root }),
      );
      help.push(await timeCommand(process.execPath, [bin, '--help'], { env }));
      version.push(await timeCommand(process.execPath, [bin, '--version'], { env }));
      list.push(await timeCommand(process.execPath, listArgs, { env }));
    }
    const base = median(node);
    rows.push({ name: `node -e 0 (baseline, median of ${runs})`, ms: base, ratio: 1 });
    rows.push({
      name: 'plugsmith --help',
      ms: median(help),
      ratio: median(help) / base,
      target: '<= 1.6x',
    });
    rows.push({
      name: 'plugsmith --version',
      ms: median(version),
      ratio: median(version) / base,
      target: '<= 1.3x',
    });
    rows.push({
      name: `plugsmith plugins list --json (emulator, ${out.length} plugins)`,
      ms: median(list),
      ratio: median(list) / base,
      target: '<= 3x',
    });
    // Where the time of a command that calls the API goes: loading undici's index alone.
    rows.push({
      name: "  node -e \"require('undici')\" (the HTTP client's load alone)",
      ms: median(undici),
      ratio: median(undici) / base,
    });
  } finally {
    await emu.stop();
    await rm(configDir, { recursive: true, force: true });
  }
  return rows;
}
