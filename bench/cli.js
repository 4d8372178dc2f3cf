// The CLI's budgets (issue 34): `plugsmith --help` <= 250 ms and `plugsmith plugins list --json`
// against a running emulator <= 400 ms, each the median of 10 whole-process runs (spawn to exit),
// the commands interleaved so they share the machine's load. `node -e 0` is measured beside them:
// what Node's own start costs on this machine at this moment. Issue 42: `plugsmith mcp` answers an
// agent's `initialize` within 400 ms and within 5x `node -e 0` (spawn to the answer's line on stdout).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClient } from './helpers/api.js';
import { median, root, startServer, timeCommand } from './lib.js';

const RUNS = 10;
const HELP_BUDGET_MS = 250;
const LIST_BUDGET_MS = 400;
const MCP_BUDGET_MS = 400;
const MCP_BUDGET_RATIO = 5;

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  },
})}\n`;

/** Spawns `plugsmith mcp` as an agent does and times it from the spawn to its answer to `initialize`, in ms. */
function timeMcpInitialize(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(new Error(`plugsmith mcp exited (${code}) before answering: ${out}`)),
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      const elapsed = performance.now() - started;
      if (!out.includes('"id":1')) return reject(new Error(`plugsmith mcp answered ${out}`));
      child.removeAllListeners('exit');
      child.once('exit', () => resolve(elapsed));
      child.kill();
    });
    child.stdin.write(INITIALIZE);
  });
}

export default async function cli() {
  const emu = await startServer('emulator-with.js', [JSON.stringify({})]);
  // An empty config dir: the figures must not depend on this machine's profiles.
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-bench-config-'));
  try {
    // A page's worth of plugins to list (the JSON output has something to do).
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
    const list = [];
    const mcp = [];
    for (let i = 0; i < RUNS; i++) {
      node.push(await timeCommand(process.execPath, ['-e', '0'], { env }));
      help.push(await timeCommand(process.execPath, [bin, '--help'], { env }));
      list.push(await timeCommand(process.execPath, listArgs, { env }));
      mcp.push(await timeMcpInitialize([bin, 'mcp', '--emulator', emu.url], env));
    }
    const mcpRatio = median(mcp) / median(node);
    return [
      { name: `node -e 0 (Node's own start, median of ${RUNS})`, ms: median(node) },
      {
        name: `plugsmith --help (median of ${RUNS})`,
        ms: median(help),
        budget: `<= ${HELP_BUDGET_MS} ms`,
        met: median(help) <= HELP_BUDGET_MS,
      },
      {
        name: `plugsmith plugins list --json (emulator, ${out.length} plugins; median of ${RUNS})`,
        ms: median(list),
        budget: `<= ${LIST_BUDGET_MS} ms`,
        met: median(list) <= LIST_BUDGET_MS,
      },
      {
        name: `plugsmith mcp: spawn to initialize answered (median of ${RUNS})`,
        ms: median(mcp),
        ratio: mcpRatio,
        budget: `<= ${MCP_BUDGET_MS} ms and <= ${MCP_BUDGET_RATIO}x node -e 0`,
        met: median(mcp) <= MCP_BUDGET_MS && mcpRatio <= MCP_BUDGET_RATIO,
      },
    ];
  } finally {
    await emu.stop();
    await rm(configDir, { recursive: true, force: true });
  }
}
