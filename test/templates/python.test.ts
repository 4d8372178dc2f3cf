import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { emulator, runCliInProcess } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { sh, userEnv } from '../kit/shell.js';

// The Python template the way a user meets it: `plugsmith init --lang python` from this checkout,
// in a folder outside the repository, on a machine with Node and Python 3 alone (nothing is
// pip-installed). Its own unittest suite runs against a real emulator with the environment that
// `plugsmith emulator exec --deploy` gives a command; `plugsmith dev` runs it from the manifest's
// dev.command, restarts it when a .py file changes, and `trigger` and `check` get their answers.
// `emulator exec` and `dev` run as processes (they run the Python one); init, deploy, trigger and
// check run in this process.

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = ['EVENT_HANDLER', 'DATA_PROVIDER', 'APP'] as const;
const MINUTES = 60_000;
let work: string;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/cli.js')))
    throw new Error('dist/ is missing: run `npm run build` before these tests');
  work = await mkdtemp(join(tmpdir(), 'plugsmith-python-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** `plugsmith init <dir> --lang python --type <type> --yes`, checked. */
async function initPython(type: string, name: string): Promise<string> {
  const dir = join(work, name);
  const init = await runCliInProcess([
    'init',
    dir,
    '--lang',
    'python',
    '--type',
    type,
    '--yes',
    '--json',
  ]);
  expect(init.code, init.stderr).toBe(0);
  expect(JSON.parse(init.stdout)).toMatchObject({ lang: 'python', type, name });
  return dir;
}

/**
 * An in-memory emulator with the project's plugin deployed to it, and the environment of
 * `plugsmith emulator exec --deploy`: its URLs, credentials, and the plugin's id and secret.
 */
async function deployedEmulator(
  dir: string,
): Promise<{ env: Record<string, string>; client: PlatformClient }> {
  const emu = await emulator();
  const client = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token!,
    apiKey: emu.apiKey!,
  });
  onTestFinished(async () => {
    await client.close();
  });
  const deployed = await runCliInProcess(
    ['deploy', '--manifest', join(dir, 'plugsmith.json'), '--org', emu.orgId!, '--json'],
    {
      env: {
        PLUGSMITH_CONFIG_DIR: join(work, 'cfg'),
        PLUGSMITH_BASE_URL: emu.url,
        PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
        PLUGSMITH_TOKEN: emu.token!,
        PLUGSMITH_API_KEY: emu.apiKey!,
        PORT: '3000',
      },
      cwd: dir,
    },
  );
  expect(deployed.code, deployed.stderr).toBe(0);
  const pluginId = JSON.parse(deployed.stdout).pluginId as string;
  const plugin = await client.plugins.get(pluginId);
  const env = {
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_API_KEY: emu.apiKey!,
    PLUGSMITH_ORG_ID: emu.orgId!,
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken,
    PLUGSMITH_PLUGIN_ID: pluginId,
    PLUGSMITH_WEBHOOK_SECRET: plugin.webhookSecret as string,
  };
  return { env, client };
}

/** `python3 -m plugin` (the production command) in its own process group, stopped when the test ends; its output so far. */
async function startPython(dir: string, env: Record<string, string>): Promise<() => string> {
  const child = spawn('python3', ['-m', 'plugin'], {
    cwd: dir,
    env: userEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  });
  await new Promise<void>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`python3 -m plugin exited (${code}):\n${output}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += line + '\n';
      if (/ is listening at /.test(line)) done();
    });
  });
  return () => output;
}

describe('plugsmith init --lang python', () => {
  for (const type of TYPES) {
    it(
      `${type}: a stdlib-only project whose own unittest suite passes against an emulator, and \`python3 -m plugin\` passes check`,
      async () => {
        const dir = await initPython(type, `py-${type.toLowerCase().replace('_', '-')}`);
        // No npm project: the plugin is Python, the CLI is run from wherever it is installed.
        expect(existsSync(join(dir, 'package.json'))).toBe(false);
        const manifest = JSON.parse(await readFile(join(dir, 'plugsmith.json'), 'utf8'));
        expect(manifest.dev).toEqual({ command: 'python3 -m plugin', watch: ['*.py'] });
        const sources = (await readdir(join(dir, 'plugin'))).filter((f) => f.endsWith('.py'));
        // The standard library only: every import is of the plugin's own modules or of the stdlib.
        for (const file of sources) {
          const text = await readFile(join(dir, 'plugin', file), 'utf8');
          for (const [, from, imported] of text.matchAll(
            /^\s*(?:from ([\w.]+) import |import ([\w.]+)$)/gm,
          )) {
            const module = from ?? imported;
            expect(
              module === '__future__' || module.startsWith('.') || isStdlib(module.split('.')[0]),
              `${file}: ${module}`,
            ).toBe(true);
          }
        }

        // The project's own suite, as its README runs it: `plugsmith emulator exec --deploy`.
        const exec = await runCli(
          ['emulator', 'exec', '--deploy', '--', 'python3', '-m', 'unittest', '-v'],
          { cwd: dir, timeoutMs: 3 * MINUTES, env: { PORT: '3000' } },
        );
        const run = { code: exec.code, output: exec.stdout + exec.stderr };
        expect(run.code, run.output).toBe(0);
        expect(run.output).toMatch(/Ran [1-9]\d* tests? in/);
        expect(run.output).toMatch(/\nOK\n/);
        expect(run.output).not.toMatch(/skipped/);
        // Also under the faults the platform produces (duplicates, delays, reordering, retries), the TypeScript template's profile.
        expect(run.output).toMatch(/UnderFaults\.test_\w+\) \.\.\. ok/);
        const tsHarness = await readFile(join(ROOT, 'templates/common/test/harness.ts'), 'utf8');
        const tsProfile = /faults: '([^']+)'/.exec(tsHarness)?.[1];
        const pyProfile = /^FAULTS = \{"profile": "([^"]+)"/m.exec(
          await readFile(join(dir, 'tests', 'harness.py'), 'utf8'),
        )?.[1];
        expect(tsProfile).toContain('drop=');
        expect(pyProfile).toBe(tsProfile);

        // The production command, as a deploy runs it, passes `plugsmith check`.
        const { env, client } = await deployedEmulator(dir);
        const port = await freePort();
        const pluginOutput = await startPython(dir, {
          PORT: String(port),
          PLUGSMITH_WEBHOOK_SECRET: env.PLUGSMITH_WEBHOOK_SECRET,
          PLUGSMITH_BASE_URL: env.PLUGSMITH_BASE_URL,
          DATA_DIR: join(dir, '.data'),
        });
        const webhookUrl = `http://127.0.0.1:${port}/webhook`;
        expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ ok: true });
        const pluginId = env.PLUGSMITH_PLUGIN_ID;
        await client.plugins.update(pluginId, { webhookUrl });
        expect((await client.plugins.verifyWebhook(pluginId)).verified).toBe(true);
        const cliEnv = { ...env, PLUGSMITH_CONFIG_DIR: join(work, 'cfg') };
        if (type === 'EVENT_HANDLER')
          expect(
            (
              await runCliInProcess(
                [
                  'handlers',
                  'add',
                  'agent_nova',
                  '--plugin',
                  pluginId,
                  '--scopes',
                  'AGENT_MESSAGE_WRITE',
                  '--dispatch-mode',
                  'SYNC',
                  '--json',
                ],
                { env: cliEnv },
              )
            ).code,
          ).toBe(0);
        const check = await runCliInProcess(['check', webhookUrl, '--plugin', pluginId, '--json'], {
          env: cliEnv,
        });
        expect(check.code, `${check.stdout}${check.stderr}`).toBe(0);
        const report = JSON.parse(check.stdout) as {
          ok: boolean;
          checks: Array<{ id: string; status: string }>;
        };
        expect(report.ok).toBe(true);
        // check's wrongly signed deliveries each left a line in the plugin's own log, without the secret.
        expect(pluginOutput()).toMatch(
          /refused delivery "[^"]+": no signature made with this plugin's secret/,
        );
        expect(pluginOutput()).not.toContain(env.PLUGSMITH_WEBHOOK_SECRET.slice('whsec_'.length));
        expect(pluginOutput()).not.toContain('Traceback');
        // Only an EVENT_HANDLER writes messages, which the side-effect checks count (as for the TypeScript template).
        expect(report.checks.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual(
          type === 'EVENT_HANDLER' ? [] : ['valid-delivery', 'duplicate-delivery'],
        );
      },
      5 * MINUTES,
    );
  }

  it(
    "a teammate's clone gets plugsmith with the README's one command, from the tarball init packed into vendor/; the READMEs name the Python files",
    async () => {
      const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
        version: string;
      };
      const dir = await initPython('EVENT_HANDLER', 'py-teammate');
      const readme = await readFile(join(dir, 'README.md'), 'utf8');
      // Not the registry (plugsmith is not published: an E404), and the file a reply is written in, not the TypeScript one.
      expect(readme).not.toContain(`plugsmith@${version}`);
      expect(readme).toContain('`plugin/reply.py` decides what to say');
      expect(readme).not.toMatch(/`src\//);
      const command = /```sh\n(npm install --global [^\n]+)\n```/.exec(readme)?.[1];
      expect(command).toBe(`npm install --global ./vendor/plugsmith-${version}.tgz`);

      // A clone: the project's files as committed (no .plugsmith/, no .data/), elsewhere, the command run there.
      const clone = join(work, 'py-teammate-clone');
      await cp(dir, clone, { recursive: true });
      const prefix = join(work, 'teammate-global');
      const install = await sh(
        'sh',
        ['-c', `${command} --prefer-offline --no-audit --no-fund`],
        clone,
        5 * MINUTES,
        userEnv({ npm_config_prefix: prefix }),
      );
      expect(install.code, install.output).toBe(0);
      const installed = await sh(join(prefix, 'bin', 'plugsmith'), ['--version'], clone, MINUTES);
      expect(installed.code, installed.output).toBe(0);
      expect(installed.stdout.trim()).toBe(version);

      const app = await readFile(
        join(await initPython('APP', 'py-app-readme'), 'README.md'),
        'utf8',
      );
      expect(app).toContain('`plugin/history.py`');
      expect(app).not.toMatch(/`src\//);
    },
    6 * MINUTES,
  );

  it("the unittest suite fails, naming the command to run, without the emulator's environment; so does the plugin without its secret", async () => {
    const dir = await initPython('APP', 'py-no-env');
    const run = await sh(
      'python3',
      ['-m', 'unittest'],
      dir,
      MINUTES,
      userEnv({ PLUGSMITH_BASE_URL: '', PLUGSMITH_WEBHOOK_SECRET: '' }),
    );
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('plugsmith emulator exec --deploy -- python3 -m unittest');

    // The production command without its secret names what to set, without a traceback.
    const unconfigured = await sh(
      'python3',
      ['-m', 'plugin'],
      dir,
      MINUTES,
      userEnv({ PLUGSMITH_WEBHOOK_SECRET: '' }),
    );
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.output).toContain(
      "PLUGSMITH_WEBHOOK_SECRET is not set: set it to the plugin's webhookSecret",
    );
    expect(unconfigured.output).not.toContain('Traceback');
    // A value that is no webhookSecret is refused at start, and not printed.
    const mistyped = await sh(
      'python3',
      ['-m', 'plugin'],
      dir,
      MINUTES,
      userEnv({ PLUGSMITH_WEBHOOK_SECRET: 'whsec_Z29vZA== whsec_n0pe-typed' }),
    );
    expect(mistyped.code).toBe(1);
    expect(mistyped.output).toContain(
      "PLUGSMITH_WEBHOOK_SECRET is not the plugin's webhookSecret: each secret is whsec_ and base64",
    );
    expect(mistyped.output).not.toContain('n0pe-typed');
    expect(mistyped.output).not.toContain('Traceback');
  });

  it('refuses deliveries that are not signed with one of its secrets, and answers the challenge with any of them', async () => {
    const dir = await initPython('APP', 'py-signatures');
    // The webhook module alone, driven from Python: rotation (two secrets), a wrong key, an old timestamp, a tampered body.
    const script = `
import base64, json, time
from plugin.webhooks import Webhook, sign, secret_key
new, old = "whsec_" + base64.b64encode(b"n" * 32).decode(), "whsec_" + base64.b64encode(b"o" * 32).decode()
hook = Webhook([new, old], {})
body = json.dumps({"id": "evt_1", "type": "WEBHOOK_CHALLENGE", "data": {"challenge": "abc"}}).encode()
def headers(secret, ts=None, b=body):
    ts = str(int(time.time()) if ts is None else ts)
    return {"webhook-id": "msg_1", "webhook-timestamp": ts, "webhook-signature": sign(secret_key(secret), "msg_1", ts, b)}
print(json.dumps([
  [hook.answer(headers(new), body).status, hook.answer(headers(new), body).body],
  hook.answer(headers(old), body).status,
  hook.answer(headers("whsec_" + base64.b64encode(b"x" * 32).decode()), body).status,
  hook.answer(headers(new, ts=int(time.time()) - 301), body).status,
  hook.answer(headers(new), body.replace(b"abc", b"abd")).status,
  hook.answer({"webhook-id": "msg_1", "webhook-timestamp": str(int(time.time())), "webhook-signature": "v1,"}, body).status,
]))
`;
    const run = await sh('python3', ['-c', script], dir, MINUTES);
    expect(run.code, run.output).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([[200, { challenge: 'abc' }], 200, 401, 401, 401, 401]);
  });
});

describe('the Python webhook server', () => {
  it('answers malformed numbers 400 (never a traceback), closes idle sockets, queues a burst of connections, handles a replay once and logs refusals', async () => {
    const dir = await initPython('APP', 'py-server');
    // The server module alone, on a real port, driven over raw sockets from Python.
    const script = `
import base64, json, socket, threading, time
from http.server import BaseHTTPRequestHandler
from plugin.server import WebhookServer, WebhookHTTPServer
from plugin.webhooks import secret_key, sign

secret = "whsec_" + base64.b64encode(b"s" * 32).decode()
other = "whsec_" + base64.b64encode(b"o" * 32).decode()
lines, handled = [], []
def on_message(event):
    handled.append(event["id"])
    time.sleep(0.2)
    return {"reply": event["id"]}
server = WebhookServer(0, "127.0.0.1", [secret], {"AGENT_MESSAGE_RECEIVED": on_message}, log=lines.append, socket_timeout=0.5)

def exchange(request):
    """Sends raw bytes, reads until the server closes: the status code, or 'closed' when nothing came."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ")[1]) if data else "closed"

def post(body, headers):
    head = "".join(f"{name}: {value}\\r\\n" for name, value in headers.items())
    return exchange(b"POST /webhook HTTP/1.1\\r\\nHost: plugin\\r\\nConnection: close\\r\\n" + head.encode("latin-1") + b"\\r\\n" + body)

def signed(webhook_id, body, key=secret, timestamp=None):
    timestamp = str(int(time.time())) if timestamp is None else timestamp
    return {"content-length": str(len(body)), "webhook-id": webhook_id, "webhook-timestamp": timestamp, "webhook-signature": sign(secret_key(key), webhook_id, timestamp, body)}

body = json.dumps({"id": "evt_1", "type": "AGENT_MESSAGE_RECEIVED", "data": {}}).encode()
results = {}
results["content-length superscript"] = post(body, {"content-length": "\\u00b2"})
results["content-length 1e3"] = post(body, {"content-length": "1e3"})
results["timestamp superscript"] = post(body, {**signed("msg_1", body), "webhook-timestamp": "\\u00b2"})
replay = signed("msg_replayed", body)
results["first"] = post(body, replay)
results["replayed"] = post(body, replay)
at_once = signed("msg_at_once", json.dumps({"id": "evt_2", "type": "AGENT_MESSAGE_RECEIVED", "data": {}}).encode())
body2 = json.dumps({"id": "evt_2", "type": "AGENT_MESSAGE_RECEIVED", "data": {}}).encode()
threads = [threading.Thread(target=lambda i=i: results.__setitem__(f"at once {i}", post(body2, at_once))) for i in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
results["wrong secret"] = post(body, signed("msg_wrong", body, key=other))
results["idle socket"] = exchange(b"")
results["partial headers"] = exchange(b"POST /webhook HTTP/1.1\\r\\nHost: plug")
results["health"] = exchange(b"GET /health HTTP/1.1\\r\\nHost: plugin\\r\\nConnection: close\\r\\n\\r\\n")
server.close()

# A burst of connections while no request is accepted: the listen backlog holds them (the standard library's 5 would not).
idle = WebhookHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
connected = []
for _ in range(60):
    try:
        connected.append(socket.create_connection(("127.0.0.1", idle.server_address[1]), timeout=0.5))
    except OSError:
        break
results["queued connections"] = len(connected)
[s.close() for s in connected]
idle.server_close()
print(json.dumps({"results": results, "handled": handled, "lines": lines}))
`;
    const run = await sh('python3', ['-c', script], dir, MINUTES);
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain('Traceback');
    const { results, handled, lines } = JSON.parse(run.stdout) as {
      results: Record<string, number | string>;
      handled: string[];
      lines: string[];
    };
    expect(results).toEqual({
      'content-length superscript': 400,
      'content-length 1e3': 400,
      'timestamp superscript': 400,
      first: 200,
      replayed: 200,
      'at once 0': 200,
      'at once 1': 200,
      'wrong secret': 401,
      'idle socket': 'closed',
      'partial headers': 'closed',
      health: 200,
      'queued connections': 60,
    });
    // The replayed delivery and the one sent twice at once were each handled once.
    expect(handled).toEqual(['evt_1', 'evt_2']);
    expect(lines.filter((line) => line.includes('was handled already'))).toHaveLength(2);
    expect(lines.filter((line) => line.includes('refused delivery "msg_wrong"'))).toEqual([
      expect.stringContaining("no signature made with this plugin's secret"),
    ]);
    expect(lines.join('\n')).not.toContain(Buffer.from('s'.repeat(32)).toString('base64'));
  });
});

/** A stdlib module, as Python itself says (sys.stdlib_module_names, 3.10+). */
let stdlib: Set<string> | undefined;
function isStdlib(module: string): boolean {
  stdlib ??= new Set(STDLIB);
  return stdlib.has(module);
}
const STDLIB = await (async () => {
  const run = await sh(
    'python3',
    ['-c', 'import sys, json; print(json.dumps(sorted(sys.stdlib_module_names)))'],
    tmpdir(),
    MINUTES,
  );
  return JSON.parse(run.stdout) as string[];
})();

describe('plugsmith dev, trigger and check with a Python plugin', () => {
  it(
    'dev runs dev.command, restarts it on every save of a .py file (sed -i too); trigger gets the reply; check passes',
    async () => {
      const dir = await initPython('EVENT_HANDLER', 'py-dev');
      const configDir = await mkdtemp(join(work, 'cfg-dev-'));
      const port = await freePort();
      const env = {
        PLUGSMITH_CONFIG_DIR: configDir,
        PLUGSMITH_BASE_URL: '',
        PLUGSMITH_TOKEN: '',
        PLUGSMITH_MESSAGING_URL: '',
        PLUGSMITH_API_KEY: '',
      };
      const dev = spawnCli(
        ['dev', '--plugin-port', String(port), '--emulator-port', '0', '--messaging-port', '0'],
        { cwd: dir, env },
      );
      await dev.stderrShows(/installed local agent \(pin_/);
      expect(dev.stderr()).toContain('started the plugin: python3 -m plugin');
      expect(dev.stderr()).toContain(`webhook verified: http://127.0.0.1:${port}/webhook`);
      expect(dev.stderr()).toContain(`py-dev is listening at http://127.0.0.1:${port}/webhook`);
      // The installation token, kept owner-only by the running plugin. It comes by webhook (PLUGIN_INSTALLED),
      // delivered after the install's answer that the line above reports: wait for it.
      const tokens = join(dir, '.data', 'tokens.json');
      for (const deadline = Date.now() + 15_000; !existsSync(tokens) && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50));
      expect((await stat(tokens)).mode & 0o777).toBe(0o600);

      // Run in the project with the same config dir, the CLI finds the emulator dev started.
      const cliEnv = env;
      const triggered = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
        cwd: dir,
        env: cliEnv,
      });
      expect(triggered.code, triggered.stderr).toBe(0);
      const first = JSON.parse(triggered.stdout);
      expect(first.reply).toMatchObject({ sender: 'CHARACTER', isStreaming: false });
      expect(first.reply.content).toMatch(/^You said: /);

      // Every save restarts the plugin, including `sed -i` (a new file renamed over the old one, as many
      // editors save): Node 20's recursive fs.watch saw only the first of those. Twice, each reply the new code's.
      const edits = [
        ['You said:', 'Heard:'],
        ['Heard:', 'Got:'],
      ];
      for (const [index, [before, after]] of edits.entries()) {
        const sed = await sh(
          'sed',
          ['-i', `s/${before}/${after}/`, join('plugin', 'reply.py')],
          dir,
          MINUTES,
        );
        expect(sed.code, sed.output).toBe(0);
        // Started again, and listening (the new process binds the port a moment after it starts).
        await dev.stderrShows(
          new RegExp(
            `(reply\\.py changed: restarting the plugin[\\s\\S]*?is listening at[\\s\\S]*?){${index + 1}}`,
          ),
        );
        const again = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
          cwd: dir,
          env: cliEnv,
        });
        expect(again.code, again.stderr).toBe(0);
        expect(JSON.parse(again.stdout).reply.content).toMatch(new RegExp(`^${after} `));
      }

      const projectState = JSON.parse(
        await readFile(join(dir, '.plugsmith', 'state.json'), 'utf8'),
      );
      const pluginId = (Object.values(projectState.targets)[0] as { pluginId: string }).pluginId;
      const check = await runCliInProcess(
        ['check', `http://127.0.0.1:${port}/webhook`, '--plugin', pluginId, '--json'],
        { cwd: dir, env: cliEnv },
      );
      expect(check.code, `${check.stdout}${check.stderr}\n--- dev ---\n${dev.stderr()}`).toBe(0);
      const report = JSON.parse(check.stdout) as {
        ok: boolean;
        checks: Array<{ id: string; status: string }>;
      };
      expect(report.ok).toBe(true);
      expect(report.checks.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual([]);

      expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
    },
    6 * MINUTES,
  );
});
