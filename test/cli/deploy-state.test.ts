import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, onTestFinished, test } from 'vitest';
import { spawnCli, tempConfigDir, type CliProcess } from '../kit/cli-process.js';
import { runCliInProcess as runCli, until, emulator } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { stateFileOf } from '../kit/emulator-state.js';

// dev and emulator start run as processes; login and deploy, the commands of another terminal, run
// in this process (test/kit's runCliInProcess), in the project's folder.

/** Environment of a CLI that has nothing configured but its own config dir. */
const bare = (configDir: string) => ({
  PLUGSMITH_CONFIG_DIR: configDir,
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_TOKEN: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
  PLUGSMITH_PROFILE: '',
});

/** A plugin project whose plugin is a tiny webhook server answering challenges. */
async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-state-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'my-bot',
        description: 'state test',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
        webhookUrl: 'http://127.0.0.1:${PORT:-3000}/webhook',
      },
    }),
  );
  await writeFile(
    join(dir, 'server.js'),
    `require('node:http').createServer((req, res) => { let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => { const e = JSON.parse(b || '{}'); res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ challenge: e.data && e.data.challenge })); }); }).listen(Number(process.env.PORT), '127.0.0.1');`,
  );
  return dir;
}

async function pluginsOf(url: string, token: string): Promise<Array<{ id: string; name: string }>> {
  const response = await request(`${url}/api/orgs/org_dev/plugins`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await response.body.json()) as { data: Array<{ id: string; name: string }> }).data;
}

/** `plugsmith dev` in the project until it has deployed; returns the process and the emulator's state file. */
async function devUntilDeployed(
  dir: string,
  configDir: string,
  args: string[],
): Promise<{ dev: CliProcess; state: { url: string; token: string; storeId: string } }> {
  const dev = spawnCli(
    ['dev', '--cmd', 'node server.js', '--plugin-port', String(await freePort()), ...args],
    { cwd: dir, env: bare(configDir) },
  );
  await until('the deploy', () =>
    /dev {2}(deployed my-bot|my-bot \(plg_\S+\) is up to date)/.test(dev.stderr()),
  );
  const state = JSON.parse(await readFile(stateFileOf(configDir, dir), 'utf8'));
  return { dev, state };
}

test('dev in one terminal, then login --local and deploy in another: one plugin', async () => {
  const dir = await project();
  const configDir = await tempConfigDir();
  const { dev, state } = await devUntilDeployed(dir, configDir, [
    '--emulator-port',
    '0',
    '--messaging-port',
    '0',
  ]);

  const deployedByDev = (await pluginsOf(state.url, state.token)).map((p) => p.id);
  expect(deployedByDev).toHaveLength(1);

  const login = await runCli(['login', '--local'], { cwd: dir, env: bare(configDir) });
  expect(login.code, login.stderr).toBe(0);
  // (deploy resolves ${PORT:-3000} without dev's PORT: it may update the webhook URL, never add a plugin)
  const deploy = await runCli(['deploy', '--json'], { cwd: dir, env: bare(configDir) });
  expect(deploy.code, deploy.stderr).toBe(0);
  expect(JSON.parse(deploy.stdout).pluginId).toBe(deployedByDev[0]);
  expect((await pluginsOf(state.url, state.token)).map((p) => p.id)).toEqual(deployedByDev);

  // The project state has one entry, keyed by the store's id.
  const projectState = JSON.parse(await readFile(join(dir, '.plugsmith', 'state.json'), 'utf8'));
  expect(Object.keys(projectState.targets)).toEqual([`store:${state.storeId}`]);
  expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
}, 60_000);

test('dev on three different emulator ports against one store: one plugin', async () => {
  const dir = await project();
  const configDir = await tempConfigDir();
  const ids = new Set<string>();
  for (let run = 0; run < 3; run++) {
    const { dev, state } = await devUntilDeployed(dir, configDir, [
      '--emulator-port',
      String(await freePort()),
      '--messaging-port',
      '0',
    ]);
    const plugins = await pluginsOf(state.url, state.token);
    expect(
      plugins.map((p) => p.name),
      `run ${run + 1} on ${state.url}`,
    ).toEqual(['my-bot']);
    ids.add(plugins[0].id);
    expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
  }
  expect(ids.size).toBe(1);
}, 90_000);

test('emulator restarted on the same data dir and another port: login --local follows it, deploy finds the same plugin; a plugin gone from the store is created anew', async () => {
  const dir = await project();
  const configDir = await tempConfigDir();
  const dataDir = join(dir, 'store');
  const startOnce = async () => {
    const emulator = spawnCli(
      [
        'emulator',
        'start',
        '--port',
        String(await freePort()),
        '--messaging-port',
        '0',
        '--data-dir',
        dataDir,
        '--json',
      ],
      { env: bare(configDir) },
    );
    return {
      emulator,
      state: JSON.parse(await emulator.nextLine()) as {
        url: string;
        token: string;
        storeId: string;
      },
    };
  };

  const first = await startOnce();
  expect(first.state.storeId).toMatch(/^st_/);
  expect((await runCli(['login', '--local'], { cwd: dir, env: bare(configDir) })).code).toBe(0);
  const created = await runCli(['deploy', '--json'], { cwd: dir, env: bare(configDir) });
  expect(created.code, created.stderr).toBe(0);
  const pluginId = JSON.parse(created.stdout).pluginId;
  expect(await first.emulator.stop('SIGTERM')).toEqual({ code: 0, signal: null });

  // Same store, new port, no new login: the local profile follows the running emulator.
  const second = await startOnce();
  expect(second.state.url).not.toBe(first.state.url);
  expect(second.state.storeId).toBe(first.state.storeId);
  const again = await runCli(['deploy', '--json'], { cwd: dir, env: bare(configDir) });
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ pluginId, changed: false });
  expect((await pluginsOf(second.state.url, second.state.token)).map((p) => p.id)).toEqual([
    pluginId,
  ]);

  // The recorded plugin deleted from the store: created anew, and said so.
  const deleted = await request(`${second.state.url}/api/plugins/${pluginId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${second.state.token}` },
  });
  expect(deleted.statusCode).toBeLessThan(300);
  await deleted.body.dump();
  const recreated = await runCli(['deploy', '--json'], { cwd: dir, env: bare(configDir) });
  expect(recreated.code, recreated.stderr).toBe(0);
  expect(recreated.stderr).toContain(
    `plugin ${pluginId} recorded in .plugsmith/state.json no longer exists in the emulator's store (${first.state.storeId})`,
  );
  const newId = JSON.parse(recreated.stdout).pluginId;
  expect(newId).not.toBe(pluginId);
  expect((await pluginsOf(second.state.url, second.state.token)).map((p) => p.id)).toEqual([newId]);
  expect(await second.emulator.stop('SIGTERM')).toEqual({ code: 0, signal: null });
}, 60_000);

test('a state file of version 1 (keyed by profile and by URL, one entry per old port) is adopted, not duplicated', async () => {
  const emu = await emulator();
  const dir = await project();
  const configDir = await tempConfigDir();
  // Two plugins an older plugsmith created for this project in this store (dev on two ports), and one elsewhere.
  const make = async () => {
    const response = await request(`${emu.url}/api/orgs/${emu.orgId}/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'my-bot',
        description: 'state test',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
        webhookUrl: 'http://127.0.0.1:3000/webhook',
      }),
    });
    return ((await response.body.json()) as { data: { id: string } }).data.id;
  };
  const older = await make();
  const newer = await make();
  const entry = (pluginId: string, baseUrl: string, deployedAt: string) => ({
    pluginId,
    baseUrl,
    orgId: emu.orgId,
    deployedAt,
    applied: { plugin: {}, actions: {}, externalEvents: {} },
  });
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, '.plugsmith'));
  await writeFile(
    join(dir, '.plugsmith', 'state.json'),
    JSON.stringify({
      version: 1,
      targets: {
        'http://127.0.0.1:4699': entry(older, 'http://127.0.0.1:4699', '2026-01-01T00:00:00.000Z'),
        local: entry(newer, 'http://127.0.0.1:4010', '2026-01-02T00:00:00.000Z'),
        production: entry('plg_remote', 'https://api.example.com', '2026-01-03T00:00:00.000Z'),
      },
    }),
  );
  const env = {
    ...bare(configDir),
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
  };
  const deploy = await runCli(['deploy', '--json', '--org', emu.orgId!], { cwd: dir, env });
  expect(deploy.code, deploy.stderr).toBe(0);
  expect(JSON.parse(deploy.stdout).pluginId).toBe(newer);
  expect(deploy.stderr).toContain(
    `this project also deployed ${older} to the emulator's store (${emu.storeId})`,
  );
  expect((await pluginsOf(emu.url, emu.token!)).map((p) => p.id).sort()).toEqual(
    [older, newer].sort(),
  );

  const state = JSON.parse(await readFile(join(dir, '.plugsmith', 'state.json'), 'utf8'));
  expect(state.version).toBe(2);
  expect(Object.keys(state.targets).sort()).toEqual(['production', `store:${emu.storeId}`]);
  expect(state.targets[`store:${emu.storeId}`]).toMatchObject({
    pluginId: newer,
    storeId: emu.storeId,
    baseUrl: emu.url,
  });
}, 60_000);

test("a cloned project's .plugsmith is read and written as a path of the project: a FIFO or a device is refused at once, a .plugsmith linked out of the project is neither read nor written", async () => {
  const emu = await emulator();
  const configDir = await tempConfigDir();
  const env = {
    ...bare(configDir),
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
  };
  const { mkdir, symlink } = await import('node:fs/promises');
  const { execFileSync } = await import('node:child_process');

  // A state that would block a read (a FIFO without a writer, the terminal's stdin) or never end (/dev/zero).
  for (const make of [
    (path: string) => execFileSync('mkfifo', [path]),
    (path: string) => symlink('/dev/zero', path),
  ]) {
    const dir = await project();
    await mkdir(join(dir, '.plugsmith'));
    make(join(dir, '.plugsmith', 'state.json'));
    const deploy = await runCli(['deploy', '--dry-run', '--org', emu.orgId!], { cwd: dir, env });
    expect(deploy.code, deploy.stderr).toBe(2);
    expect(deploy.stderr).toMatch(
      /the project's deploy state \.plugsmith\/state\.json (is not a regular file|leads outside the project)/,
    );
    expect(deploy.stderr).toContain('rm .plugsmith/state.json');
    expect(deploy.stderr).toContain("`.plugsmith/emulator` is dev's store, keep it");
  }

  // .plugsmith linked to a folder outside the project: its state.json is never replaced.
  const dir = await project();
  const outside = await mkdtemp(join(tmpdir(), 'plugsmith-state-outside-'));
  onTestFinished(() => rm(outside, { recursive: true, force: true }));
  await writeFile(join(outside, 'state.json'), '{"important":true}');
  await symlink(outside, join(dir, '.plugsmith'));
  const deploy = await runCli(['deploy', '--org', emu.orgId!], { cwd: dir, env });
  expect(deploy.code, deploy.stderr).toBe(2);
  expect(deploy.stderr).toContain(
    "the project's deploy state .plugsmith/state.json leads outside the project",
  );
  expect(await readFile(join(outside, 'state.json'), 'utf8')).toBe('{"important":true}');

  // Linked out with no state there yet: the deploy's state is not written through the link.
  const fresh = await project();
  const empty = await mkdtemp(join(tmpdir(), 'plugsmith-state-outside-'));
  onTestFinished(() => rm(empty, { recursive: true, force: true }));
  await symlink(empty, join(fresh, '.plugsmith'));
  const before = (await pluginsOf(emu.url, emu.token!)).length;
  const written = await runCli(['deploy', '--org', emu.orgId!], { cwd: fresh, env });
  expect(written.code, written.stderr).toBe(2);
  expect(written.stderr).toContain(
    "the project's deploy state .plugsmith/state.json leads outside the project",
  );
  const { readdir } = await import('node:fs/promises');
  expect(await readdir(empty)).toEqual([]);
  // Refused before the deploy: no plugin was made that no state records.
  expect((await pluginsOf(emu.url, emu.token!)).length).toBe(before);

  // A state.json linked to nothing is no state: the deploy goes ahead.
  const dangling = await project();
  await mkdir(join(dangling, '.plugsmith'));
  await symlink(join(dangling, 'gone.json'), join(dangling, '.plugsmith', 'state.json'));
  const deployed = await runCli(['deploy', '--org', emu.orgId!], { cwd: dangling, env });
  expect(deployed.code, deployed.stderr).toBe(0);
}, 60_000);
