import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { describe, expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { runCliInProcess, until, tempDir, freshMachine } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { stateFileOf } from '../kit/emulator-state.js';

// Several projects on one machine, each with its own emulator: found from the folder a command
// runs in, never another project's. Every folder here is outside this repository (the OS temp dir),
// and every CLI runs with a temporary HOME and config dir. `dev` and `emulator start` run as
// processes (their lifetime and signals are part of what is tested); the short commands that find
// an emulator run in this process, in the project's folder, with the same environment.

/** A short command in this process (test/kit's `runCliInProcess`: cwd and environment for the run). */
const run = runCliInProcess;

/** The plugin: test/fixtures/plugins/replying-handler.mjs, which answers every message (so trigger returns at once). */
const SERVER_JS = `import ${JSON.stringify(pathToFileURL(resolve(import.meta.dirname, '../fixtures/plugins/replying-handler.mjs')).href)};\n`;

function manifest(name: string, installs: unknown[] = []) {
  return JSON.stringify({
    plugin: {
      name,
      description: 'a project of its own',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
    },
    installs,
  });
}

async function project(name: string, installs: unknown[] = []): Promise<string> {
  const dir = await tempDir(`plugsmith-project-${name}-`);
  await writeFile(join(dir, 'plugsmith.json'), manifest(name, installs));
  await writeFile(join(dir, 'server.js'), SERVER_JS);
  return realpathSync(dir);
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

async function instancesOf(
  state: { url: string; adminToken: string },
  pluginId: string,
): Promise<Array<{ id: string; entityId: string }>> {
  const response = await request(`${state.url}/_emulator/instances?pluginId=${pluginId}`, {
    headers: { 'x-plugsmith-admin': state.adminToken },
  });
  return ((await response.body.json()) as { data: Array<{ id: string; entityId: string }> }).data;
}

describe('one emulator per project', { timeout: 150_000 }, () => {
  test('two projects run dev side by side, each with its own emulator and store; each trigger answers; stopping one never disturbs the other', async () => {
    const env = await freshMachine();
    const a = await project('alpha', [{ name: 'on nova', agent: 'agent_nova' }]);
    const b = await project('beta', [{ name: 'on nova', agent: 'agent_nova' }]);
    const devA = spawnCli(
      ['dev', '--cmd', 'node server.js', '--plugin-port', String(await freePort())],
      { cwd: a, env },
    );
    await devA.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
    const stateA = JSON.parse(await readFile(stateFileOf(env.PLUGSMITH_CONFIG_DIR, a), 'utf8'));
    expect(stateA).toMatchObject({ project: a, pid: devA.child.pid });

    // B does not join A's emulator: it starts its own, on free ports when A holds the default ones.
    const devB = spawnCli(
      ['dev', '--cmd', 'node server.js', '--plugin-port', String(await freePort())],
      { cwd: b, env },
    );
    await devB.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
    const stateB = JSON.parse(await readFile(stateFileOf(env.PLUGSMITH_CONFIG_DIR, b), 'utf8'));
    expect(devB.stderr()).not.toContain('using the running emulator');
    expect(devB.stderr()).toContain(
      `emulator started at ${stateB.url} (store ${join(b, '.plugsmith', 'emulator')})`,
    );
    expect(stateB.url).not.toBe(stateA.url);
    expect(stateB.storeId).not.toBe(stateA.storeId);
    if (new URL(stateA.url).port === '4010')
      expect(devB.stderr()).toContain(
        `port 4010 is in use by the emulator of ${a} (pid ${devA.child.pid})`,
      );

    // Each project's commands find its own emulator and its own plugin.
    for (const [dir, dev] of [
      [a, devA],
      [b, devB],
    ] as const) {
      const triggered = await run(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
        cwd: dir,
        env,
      });
      expect(triggered.code, triggered.stderr).toBe(0);
      const id = JSON.parse(triggered.stdout).delivery.id;
      expect(JSON.parse(triggered.stdout).reply).toMatchObject({ sender: 'CHARACTER' });
      await dev.lineMatching(new RegExp(`AGENT_MESSAGE_RECEIVED\\s+delivered  HTTP 200.*${id}`));
    }

    // Both are listed (no credentials); outside any project the most recent (B) is used, or --emulator picks one.
    const outside = await tempDir('plugsmith-outside-');
    const list = await run(['emulator', 'list', '--json'], { cwd: outside, env });
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as Array<{
      project: string;
      url: string;
      pid: number;
      uptimeSeconds: number;
    }>;
    expect(listed.map((e) => e.project)).toEqual([b, a]);
    expect(listed[1]).toMatchObject({ url: stateA.url, pid: devA.child.pid });
    expect(list.stdout).not.toContain(stateA.adminToken);
    const human = await run(['emulator', 'list'], { cwd: outside, env });
    expect(human.stdout).toMatch(/PROJECT\s+URL\s+MESSAGING\s+PID\s+UPTIME/);
    const recent = await run(['whoami', '--json'], { cwd: outside, env });
    expect(JSON.parse(recent.stdout)).toMatchObject({ baseUrl: stateB.url });
    // Picked among several, it says which (stderr), so that a delete does not surprise.
    expect(recent.stderr).toContain(
      `using the emulator at ${stateB.url}, the most recently started of 2 running here`,
    );
    const picked = await run(['whoami', '--json', '--emulator', a], { cwd: outside, env });
    expect(JSON.parse(picked.stdout)).toMatchObject({ baseUrl: stateA.url });
    expect(picked.stderr).not.toContain('most recently started');
    const byUrl = await run(['logs', '--json', '--emulator', stateA.url], { cwd: outside, env });
    expect(byUrl.code, byUrl.stderr).toBe(0);
    expect(JSON.parse(byUrl.stdout).length).toBeGreaterThan(0);

    // `emulator stop` in A stops A's (its dev, which owns it, ends cleanly); B goes on undisturbed.
    const stopped = await run(['emulator', 'stop', '--json'], { cwd: a, env });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      project: a,
      pid: devA.child.pid,
      stopped: true,
    });
    expect(await devA.stop('SIGINT')).toMatchObject({ code: 0 });
    const again = await run(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], { cwd: b, env });
    expect(again.code, again.stderr).toBe(0);
    await devB.lineMatching(
      new RegExp(
        `AGENT_MESSAGE_RECEIVED\\s+delivered  HTTP 200.*${JSON.parse(again.stdout).delivery.id}`,
      ),
    );
    expect(devB.stderr()).not.toMatch(/lost|reconnect/);

    // A's commands now say that A has no emulator, where they looked, and how to start one.
    for (const args of [
      ['trigger', 'AGENT_MESSAGE_RECEIVED'],
      ['logs'],
      ['check'],
      ['deploy'],
      ['login', '--local'],
      ['emulator', 'dashboard'],
      ['emulator', 'reset', '--yes'],
      ['emulator', 'stop'],
    ]) {
      const result = await run(args, { cwd: a, env: { ...env, PORT: '3999' } });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(4);
      expect(result.stderr, args.join(' ')).toContain(`no emulator runs for the project ${a}`);
      expect(result.stderr, args.join(' ')).toContain(
        '`plugsmith dev` or `plugsmith emulator start`',
      );
    }
    expect((await run(['emulator', 'list', '--json'], { cwd: outside, env })).stdout).not.toContain(
      a,
    );
    expect(await devB.stop('SIGINT')).toMatchObject({ code: 0 });
  });

  test('emulator start in two projects: the default port taken by one gives the other free ports; an asked-for taken port is an error naming the holder', async () => {
    const env = await freshMachine();
    const a = await project('gamma');
    const b = await project('delta');
    const port = await freePort();
    const first = spawnCli(
      ['emulator', 'start', '--port', String(port), '--messaging-port', '0', '--json'],
      { cwd: a, env },
    );
    const stateA = JSON.parse(await first.nextLine());
    expect(stateA).toMatchObject({ project: a, url: `http://127.0.0.1:${port}` });

    const taken = await runCli(
      ['emulator', 'start', '--port', String(port), '--messaging-port', '0'],
      { cwd: b, env },
    );
    expect(taken.code).toBe(6);
    expect(taken.stderr).toContain(
      `port ${port} is in use by the emulator of ${a} (pid ${first.child.pid})`,
    );

    // The defaults (4010/4011): whoever holds them, B's emulator starts, on free ports when needed, and says where.
    const second = spawnCli(['emulator', 'start'], { cwd: b, env });
    const banner = await second.lineMatching(/management API/);
    const url = /(http:\/\/127\.0\.0\.1:\d+) /.exec(banner)![1];
    expect(url).not.toBe(stateA.url);
    expect(second.stderr()).toMatch(
      url.endsWith(':4010')
        ? /^$/
        : /port 4010 is in use by .*: this emulator listens on a free port instead/,
    );
    const inB = await run(['whoami', '--json'], { cwd: b, env });
    expect(JSON.parse(inB.stdout)).toMatchObject({ baseUrl: url });
    const inA = await run(['whoami', '--json'], { cwd: join(a), env });
    expect(JSON.parse(inA.stdout)).toMatchObject({ baseUrl: stateA.url });

    // Stopped by folder from anywhere; the other one keeps answering.
    const stop = await run(['emulator', 'stop', b], { env });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`stopped the emulator of ${b}`);
    expect((await second.stop('SIGTERM')).code).toBe(0);
    expect((await request(`${stateA.url}/_emulator/health`)).statusCode).toBe(200);
    expect((await first.stop('SIGTERM')).code).toBe(0);
  });

  test('the by-hand path (deploy, plugins verify, handlers add) then dev: one instance, reused; dev follows its emulator through a restart', async () => {
    const env = await freshMachine();
    const dir = await project('epsilon', [{ name: 'on nova', agent: 'agent_nova' }]);
    const pluginPort = await freePort();
    const envWithPort = { ...env, PORT: String(pluginPort) };
    const startEmulator = () =>
      spawnCli(['emulator', 'start', '--port', '0', '--messaging-port', '0', '--json'], {
        cwd: dir,
        env,
      });
    let emulator = startEmulator();
    let state = JSON.parse(await emulator.nextLine());

    // By hand, as docs/first-plugin.md goes: deploy, run the plugin, verify it, install it on the agent.
    const deployed = await run(['deploy', '--json'], { cwd: dir, env: envWithPort });
    expect(deployed.code, deployed.stderr).toBe(0);
    const pluginId = JSON.parse(deployed.stdout).pluginId as string;
    const plugin = JSON.parse(
      (await run(['plugins', 'get', pluginId, '--json'], { cwd: dir, env })).stdout,
    );
    const receiver = spawn(process.execPath, ['server.js'], {
      cwd: dir,
      env: {
        ...process.env,
        PORT: String(pluginPort),
        PLUGSMITH_WEBHOOK_SECRET: plugin.webhookSecret,
      },
      stdio: 'ignore',
    });
    onTestFinished(() => void receiver.kill('SIGKILL'));
    await until(
      'the receiver',
      async () =>
        await request(`http://127.0.0.1:${pluginPort}/webhook`, {
          method: 'POST',
          body: '{}',
        }).then(
          (r) => r.body.dump().then(() => true),
          () => false,
        ),
    );
    const verified = await run(['plugins', 'verify', pluginId], { cwd: dir, env });
    expect(verified.code, verified.stderr).toBe(0);
    const added = await run(
      [
        'handlers',
        'add',
        'agent_nova',
        '--plugin',
        pluginId,
        '--scopes',
        'AGENT_MESSAGE_WRITE',
        '--json',
      ],
      { cwd: dir, env },
    );
    expect(added.code, added.stderr).toBe(0);
    const handInstance = JSON.parse(added.stdout).id as string;
    receiver.kill('SIGTERM');
    await until(
      'the receiver to stop',
      () => receiver.exitCode !== null || receiver.signalCode !== null,
    );

    // dev adopts it: the same plugin, the same instance, never a second one.
    const dev = spawnCli(['dev', '--cmd', 'node server.js', '--plugin-port', String(pluginPort)], {
      cwd: dir,
      env,
    });
    await until(
      'the installs',
      () => /reusing instance|installed on nova/.test(dev.stderr()),
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; dev said:\n${dev.stderr()}`);
    });
    expect(dev.stderr()).toContain(`using the running emulator at ${state.url}`);
    expect(dev.stderr()).toContain(`reusing instance ${handInstance} on agent_nova`);
    expect(dev.stderr()).not.toContain('installed on nova');
    expect((await instancesOf(state, pluginId)).map((i) => i.id)).toEqual([handInstance]);

    // The emulator stops: one line, then a quiet wait (not a line every few seconds).
    expect((await emulator.stop('SIGTERM')).code).toBe(0);
    await until('the lost line', () => dev.stderr().includes('lost the emulator at'));
    // Only time shows a wait is quiet: dev looks for the emulator every second (no option sets it), so four looks.
    await new Promise((r) => setTimeout(r, 4000));
    expect(count(dev.stderr(), 'lost the emulator at')).toBe(1);
    expect(dev.stderr()).not.toContain('delivery stream lost');

    // It comes back on other ports with a new admin credential: dev reads the state file again and follows it.
    emulator = startEmulator();
    state = JSON.parse(await emulator.nextLine());
    await until('dev to follow the restart', () =>
      dev.stderr().includes(`the emulator restarted at ${state.url}`),
    );
    await until('the stream to reconnect', () =>
      dev.stderr().includes(`the emulator answers again at ${state.url}`),
    );
    const triggered = await run(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], { cwd: dir, env });
    expect(triggered.code, triggered.stderr).toBe(0);
    // The plugin dev restarted answers with the token the by-hand install gave (kept in its folder).
    expect(JSON.parse(triggered.stdout).reply, dev.stderr()).toMatchObject({ sender: 'CHARACTER' });
    await dev.lineMatching(
      new RegExp(
        `AGENT_MESSAGE_RECEIVED\\s+delivered  HTTP 200.*${JSON.parse(triggered.stdout).delivery.id}`,
      ),
    );
    expect(dev.stderr()).not.toMatch(/HTTP 401/);
    expect((await instancesOf(state, pluginId)).map((i) => i.id)).toEqual([handInstance]);
    expect(await dev.stop('SIGINT')).toMatchObject({ code: 0 });
    expect((await emulator.stop('SIGTERM')).code).toBe(0);
  });
});
