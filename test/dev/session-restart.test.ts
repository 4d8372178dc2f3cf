import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { DevSession } from '../../src/dev/session.js';
import { freePort } from '../kit/ports.js';
import { until, emulator } from '../kit/index.js';

/** A plugin that notes each process it ran as (one pid a line) and listens on PORT. */
const SERVER_JS = `
import { createServer } from 'node:http';
import { appendFileSync } from 'node:fs';
appendFileSync('pids.txt', process.pid + '\\n');
createServer((req, res) => { res.statusCode = 401; res.end(); }).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** Whether a process runs (a zombie, killed but not reaped by an init that does not reap, does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

async function pids(dir: string): Promise<number[]> {
  const text = await readFile(join(dir, 'pids.txt'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

test('dev: two restarts at once (a redeploy and a secret check) leave one plugin process, and stop() leaves none', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-restart-'));
  const emu = await emulator();
  onTestFinished(async () => {
    for (const pid of await pids(dir)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  const port = await freePort();
  await writeFile(join(dir, 'server.js'), SERVER_JS);
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'Restart plugin',
        description: 'd',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
        webhookUrl: `http://127.0.0.1:${port}/webhook`,
      },
    }),
  );
  const lines: string[] = [];
  const session = new DevSession(
    {
      manifestPath: join(dir, 'plugsmith.json'),
      command: 'node server.js',
      env: { ...process.env },
      dataDir: dir,
      verifyTimeoutMs: 1000,
      installs: false,
      // A crashed plugin is started again after 50 ms, then 100 ms, 200 ms (dev's default starts at 0.5 s).
      firstRestartDelayMs: 50,
      target: {
        url: emu.url,
        messagingUrl: emu.messagingUrl,
        token: emu.token!,
        apiKey: emu.apiKey,
        orgId: emu.orgId!,
        adminToken: emu.adminToken,
        storeId: emu.storeId,
      },
    },
    {
      info: (m) => lines.push(m),
      warn: (m) => lines.push(m),
      delivery: () => undefined,
      pluginOutput: () => undefined,
    },
  );
  await session.start();
  await until('the plugin', async () => (await pids(dir)).length === 1);
  // What a redeploy that read a new secret and a refused delivery's secret check both do.
  const restart = (why: string) =>
    (session as unknown as { restartPlugin(why: string): Promise<void> }).restartPlugin(why);
  await Promise.all([restart('a redeploy'), restart('a secret check')]);
  // The restart started its process; stopped before it ran, it would never have noted its pid.
  await until('the restarted plugin', async () => (await pids(dir)).length >= 2, {
    explain: () => lines.join('\n'),
  });
  await session.stop();
  // A second process would die on the taken port and be restarted, again and again, by a PluginProcess nothing stops.
  // Only time shows none comes back: 1 s holds the first restarts (after 50, then 100 and 200 ms), each after its
  // process started and died on the port.
  await new Promise((r) => setTimeout(r, 1000));
  const started = await pids(dir);
  expect(
    { started: started.length, runningAfterStop: started.filter(alive).length },
    lines.join('\n'),
  ).toEqual({ started: 2, runningAfterStop: 0 });
}, 30_000);
