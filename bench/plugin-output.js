// Issue 43's budgets for the plugin's own output: a line the plugin writes is readable through the admin
// API (GET /_emulator/plugins/:pluginId/output) and through MCP (`follow_plugin_output` of a spawned
// `plugsmith mcp`, waiting for it) within 100 ms, and capturing it costs under 5% of the
// deliveries/s figure. `plugsmith dev` runs in a temporary project whose plugin prints a line per event
// (as the templates do) or, switched quiet, nothing: the cost is deliveries/s printing against quiet,
// in rounds that take turns, each round a burst of SYNC events (each waits for its attempt).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, percentile, root } from './lib.js';

const CLI = join(root, 'bin/plugsmith.js');
const LATENCY_BUDGET_MS = 100;
const COST_BUDGET = 0.05;

const MANIFEST = {
  plugin: {
    name: 'bench output',
    description: 'prints a line per event',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: [],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
  },
  installs: [{ name: 'on nova', agent: 'agent_nova' }],
};

const SERVER = `
import { createServer } from 'node:http';
let quiet = false;
createServer((req, res) => {
  const url = new URL(req.url, 'http://plugin');
  if (url.pathname === '/say') {
    console.log(url.searchParams.get('text'));
    return res.end('ok');
  }
  if (url.pathname === '/quiet') {
    quiet = url.searchParams.get('on') === '1';
    return res.end('ok');
  }
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const event = JSON.parse(body);
    if (event.type === 'WEBHOOK_CHALLENGE') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ challenge: event.data.challenge }));
    }
    if (!quiet) console.log(new Date().toISOString() + ' ' + event.type + ' ' + event.id + ' handled in 0 ms');
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

function messageData(i) {
  const now = new Date().toISOString();
  return {
    agentId: 'agent_nova',
    characterId: 'char_nova',
    conversationId: 'conv_bench',
    message: {
      id: `msg_bench_${i}`,
      conversationId: 'conv_bench',
      sender: 'USER',
      type: 'TEXT',
      content: 'hello',
      attachments: [],
      isStreaming: false,
      createdAt: now,
      updatedAt: now,
    },
  };
}

export default async function pluginOutput({ quick }) {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-bench-output-'));
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-bench-output-cfg-'));
  await writeFile(join(dir, 'server.mjs'), SERVER);
  await writeFile(join(dir, 'plugsmith.json'), JSON.stringify(MANIFEST));
  const env = { ...process.env, PLUGSMITH_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
  for (const name of [
    'PLUGSMITH_BASE_URL',
    'PLUGSMITH_TOKEN',
    'PLUGSMITH_MESSAGING_URL',
    'PLUGSMITH_API_KEY',
    'PLUGSMITH_ADMIN_TOKEN',
  ])
    delete env[name];
  const pluginPort = 20_000 + Math.floor(Math.random() * 20_000);
  const dev = spawn(
    process.execPath,
    [
      CLI,
      'dev',
      '--cmd',
      'node server.mjs',
      '--plugin-port',
      String(pluginPort),
      '--emulator-port',
      '0',
      '--messaging-port',
      '0',
    ],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  try {
    // dev prints a line per attempt: read them all, or its pipe fills and dev waits.
    const installed = new Promise((resolve) =>
      createInterface({ input: dev.stdout }).on('line', (line) => {
        if (/PLUGIN_INSTALLED\s+delivered/.test(line)) resolve();
      }),
    );
    await installed;
    const [stateName] = await readdir(join(configDir, 'emulators'));
    const state = JSON.parse(await readFile(join(configDir, 'emulators', stateName), 'utf8'));
    const headers = { 'x-plugsmith-admin': state.adminToken, 'content-type': 'application/json' };
    const admin = async (method, path, body) => {
      const answer = await fetch(`${state.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
      return (await answer.json()).data;
    };
    const [install] = await admin('GET', '/_emulator/deliveries?type=PLUGIN_INSTALLED');
    const { pluginId, pluginInstanceId } = install;
    const plugin = `http://127.0.0.1:${pluginPort}`;

    // (a) A line written by the plugin, readable through the admin API: polled every 2 ms.
    let cursor = (await admin('GET', `/_emulator/plugins/${pluginId}/output?after=0&limit=500`))
      .next;
    const latencies = [];
    for (let i = 0; i < (quick ? 15 : 40); i++) {
      const marker = `mark-${i}-${Math.random().toString(36).slice(2)}`;
      const started = performance.now();
      await fetch(`${plugin}/say?text=${marker}`).then((r) => r.text());
      for (;;) {
        const page = await admin('GET', `/_emulator/plugins/${pluginId}/output?after=${cursor}`);
        cursor = page.next;
        if (page.lines.some((l) => l.text === marker)) break;
        if (performance.now() - started > 5000) throw new Error(`${marker} never arrived`);
        await sleep(2);
      }
      latencies.push(performance.now() - started);
      await sleep(20);
    }

    // (a2) The same through MCP: follow_plugin_output from the cursor, waiting for the line, as an agent follows.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      cwd: dir,
      env,
      stderr: 'ignore',
    });
    const mcp = new Client({ name: 'bench', version: '1' });
    await mcp.connect(transport);
    const throughMcp = [];
    try {
      for (let i = 0; i < (quick ? 15 : 40); i++) {
        const marker = `mcp-${i}-${Math.random().toString(36).slice(2)}`;
        const started = performance.now();
        await fetch(`${plugin}/say?text=${marker}`).then((r) => r.text());
        for (;;) {
          const answer = await mcp.callTool({
            name: 'follow_plugin_output',
            arguments: { pluginId, cursor, waitSeconds: 5 },
          });
          const page = answer.structuredContent;
          if (answer.isError || !page) throw new Error(JSON.stringify(answer.content));
          cursor = page.next;
          if (page.lines.some((l) => l.untrusted.text === marker)) break;
          if (performance.now() - started > 5000) throw new Error(`${marker} never arrived`);
        }
        throughMcp.push(performance.now() - started);
        await sleep(20);
      }
    } finally {
      await mcp.close();
    }

    // (b) deliveries/s with a line per event captured, against the same plugin printing nothing.
    const burst = quick ? 300 : 800;
    const concurrency = 16;
    let sequence = 0;
    const round = async () => {
      let next = 0;
      const started = performance.now();
      const worker = async () => {
        while (next < burst) {
          next++;
          await admin('POST', '/_emulator/events', {
            type: 'AGENT_MESSAGE_RECEIVED',
            pluginId,
            pluginInstanceId,
            mode: 'SYNC',
            data: messageData(sequence++),
          });
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return burst / ((performance.now() - started) / 1000);
    };
    const printing = [];
    const quiet = [];
    await round(); // warm-up
    for (let i = 0; i < (quick ? 2 : 4); i++) {
      // Taking turns, in alternating order, so drift (a JIT warming up, a busy neighbour) falls on both.
      const order = i % 2 === 0 ? [true, false] : [false, true];
      for (const loud of order) {
        await fetch(`${plugin}/quiet?on=${loud ? 0 : 1}`).then((r) => r.text());
        (loud ? printing : quiet).push(await round());
      }
    }
    const ratio = median(printing) / median(quiet);
    return [
      {
        name: `a plugin line readable through GET /_emulator/plugins/:id/output (${latencies.length} lines)`,
        p50: median(latencies),
        p99: percentile(latencies, 99),
        budget: `p99 <= ${LATENCY_BUDGET_MS} ms`,
        met: percentile(latencies, 99) <= LATENCY_BUDGET_MS,
      },
      {
        name: `a plugin line readable through MCP follow_plugin_output, waiting (${throughMcp.length} lines)`,
        p50: median(throughMcp),
        p99: percentile(throughMcp, 99),
        budget: `p99 <= ${LATENCY_BUDGET_MS} ms`,
        met: percentile(throughMcp, 99) <= LATENCY_BUDGET_MS,
      },
      { name: 'deliveries/s (SYNC events), the plugin printing nothing', rps: median(quiet) },
      {
        name: 'deliveries/s (SYNC events), a line per event captured and posted; ratio to quiet',
        rps: median(printing),
        ratio,
        budget: `>= ${1 - COST_BUDGET}x (capture costs < ${COST_BUDGET * 100}%)`,
        met: ratio >= 1 - COST_BUDGET,
      },
    ];
  } finally {
    dev.kill('SIGTERM');
    await new Promise((resolve) => dev.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
  }
}
