import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { runCliInProcess, tempDir, freshMachine } from '../kit/index.js';

// Two projects on every default: both manifests say `${PORT:-<port>}`, as both templates do. The
// second `dev` finds the default taken by the first project's plugin and moves its own plugin to a
// free port, as the emulator's ports move; a `deploy` without PORT in that project then keeps the
// port dev deployed with instead of pointing the webhook at the other project's plugin. Real
// processes (dev spawned, the plugins node servers), real ports; the folders are outside this
// repository, with a temporary HOME and config dir.

/** test/fixtures/plugins/replying-handler.mjs: answers every message, listens on PORT. */
const SERVER_JS = `import ${JSON.stringify(pathToFileURL(resolve(import.meta.dirname, '../fixtures/plugins/replying-handler.mjs')).href)};\n`;

async function project(name: string, defaultPort: number): Promise<string> {
  const dir = realpathSync(await tempDir(`plugsmith-port-${name}-`));
  const manifest = {
    plugin: {
      name,
      description: 'a project on the default port',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      webhookUrl: `http://127.0.0.1:\${PORT:-${defaultPort}}/webhook`,
    },
    installs: [{ name: 'on nova', agent: 'agent_nova' }],
  };
  await writeFile(join(dir, 'plugsmith.json'), JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, 'server.js'), SERVER_JS);
  return dir;
}

/** Another program listening on `port` until the test ends. */
async function holdPort(port: number): Promise<void> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(port, done));
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
}

/** A trigger in the project `dir` gets the plugin's reply. */
async function expectReply(dir: string, env: Record<string, string>): Promise<void> {
  const triggered = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
    cwd: dir,
    env,
  });
  expect(triggered.code, triggered.stderr).toBe(0);
  expect(JSON.parse(triggered.stdout).reply).toMatchObject({ sender: 'CHARACTER' });
}

test('a second project on the same default plugin port: dev moves its plugin to a free port and deploys with it; deploy without PORT keeps that port', {
  timeout: 150_000,
}, async () => {
  const env = await freshMachine();
  const defaultPort = await freePort();
  const a = await project('alpha', defaultPort);
  const b = await project('beta', defaultPort);

  const devA = spawnCli(['dev', '--cmd', 'node server.js'], { cwd: a, env });
  await devA.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  expect(devA.stderr()).toContain(`webhook verified: http://127.0.0.1:${defaultPort}/webhook`);

  // B on the same defaults: no exit 6, its plugin moves (the next free port), said once. A's dev claimed
  // the port (port-claims.ts), so that is what B names.
  const devB = spawnCli(['dev', '--cmd', 'node server.js'], { cwd: b, env });
  await devB.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  const moved =
    /the plugin's port (\d+) is claimed by another `plugsmith dev` in .* \(pid \d+, its claim .*plugin-ports.*\.json\): the plugin gets PORT=(\d+) instead/.exec(
      devB.stderr(),
    );
  expect(moved, devB.stderr()).not.toBeNull();
  expect(Number(moved![1])).toBe(defaultPort);
  const port = Number(moved![2]);
  expect(port).not.toBe(defaultPort);
  expect(devB.stderr()).toContain(`PORT=${port})`);
  expect(devB.stderr()).toContain(`webhook verified: http://127.0.0.1:${port}/webhook`);

  // Each project's event reaches its own plugin.
  for (const [dir, dev] of [
    [a, devA],
    [b, devB],
  ] as const) {
    const triggered = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
      cwd: dir,
      env,
    });
    expect(triggered.code, triggered.stderr).toBe(0);
    const id = JSON.parse(triggered.stdout).delivery.id;
    expect(JSON.parse(triggered.stdout).reply).toMatchObject({ sender: 'CHARACTER' });
    await dev.lineMatching(new RegExp(`AGENT_MESSAGE_RECEIVED\\s+delivered  HTTP 200.*${id}`));
  }

  // deploy without PORT in B: the port dev deployed with, said so, and nothing to change; A keeps its default.
  const dryB = await runCliInProcess(['deploy', '--dry-run'], { cwd: b, env });
  expect(dryB.code, dryB.stderr).toBe(0);
  expect(dryB.stderr).toContain(
    `plugin.webhookUrl uses \${PORT} (unset: ${port}, the port \`plugsmith dev\` gave this project's plugin on this emulator; set PORT to choose): http://127.0.0.1:${port}/webhook`,
  );
  expect(dryB.stdout).toMatch(/^No changes: beta/);
  const dryJson = await runCliInProcess(['deploy', '--dry-run', '--json'], { cwd: b, env });
  expect(JSON.parse(dryJson.stdout)).toMatchObject({ changed: false, portFromDev: port });
  const dryA = await runCliInProcess(['deploy', '--dry-run'], { cwd: a, env });
  expect(dryA.code, dryA.stderr).toBe(0);
  expect(dryA.stderr).toContain(
    `plugin.webhookUrl uses \${PORT} (unset: its default): http://127.0.0.1:${defaultPort}/webhook`,
  );
  expect(dryA.stdout).toMatch(/^No changes: alpha/);

  // PORT given by hand wins over what dev recorded.
  const chosen = await runCliInProcess(['deploy', '--dry-run', '--json'], {
    cwd: b,
    env: { ...env, PORT: String(defaultPort) },
  });
  expect(chosen.code, chosen.stderr).toBe(0);
  expect(JSON.parse(chosen.stdout).changed).toBe(true);

  expect(await devB.stop('SIGINT')).toMatchObject({ code: 0 });
  expect(await devA.stop('SIGINT')).toMatchObject({ code: 0 });
});

test('a port asked for that is taken is still an error naming its holder (exit 6)', {
  timeout: 60_000,
}, async () => {
  const env = await freshMachine();
  const a = await project('alpha', await freePort());
  const holder = await freePort();
  await holdPort(holder);
  for (const [args, extra] of [
    [['--plugin-port', String(holder)], {}],
    [[], { PORT: String(holder) }],
  ] as const) {
    const dev = await runCli(['dev', '--cmd', 'node server.js', ...args], {
      cwd: a,
      env: { ...env, ...extra },
    });
    expect(dev.code, dev.stderr).toBe(6);
    expect(dev.stderr).toContain(`port ${holder} is in use by`);
  }
});

test('--plugin-port 0 gives the plugin a free port of its own, deployed and verified there, whatever holds the default', {
  timeout: 90_000,
}, async () => {
  const env = await freshMachine();
  const defaultPort = await freePort();
  const a = await project('alpha', defaultPort);
  await holdPort(defaultPort);

  const dev = spawnCli(['dev', '--cmd', 'node server.js', '--plugin-port', '0'], { cwd: a, env });
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  const verified = /webhook verified: http:\/\/127\.0\.0\.1:(\d+)\/webhook/.exec(dev.stderr());
  expect(verified, dev.stderr()).not.toBeNull();
  const port = Number(verified![1]);
  expect(port).toBeGreaterThan(0);
  expect(port).not.toBe(defaultPort);
  // Asked for, so nothing "moved".
  expect(dev.stderr()).not.toContain('instead');
  await expectReply(a, env);
  expect(await dev.stop('SIGINT')).toMatchObject({ code: 0 });
});

test('--plugin-port 0 with a webhook URL that does not follow PORT is a usage error, before anything starts', {
  timeout: 60_000,
}, async () => {
  const env = await freshMachine();
  const fixed = await freePort();
  const a = await project('alpha', fixed);
  const manifestPath = join(a, 'plugsmith.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  manifest.plugin.webhookUrl = `http://127.0.0.1:${fixed}/webhook`;
  await writeFile(manifestPath, JSON.stringify(manifest));
  const dev = await runCli(['dev', '--cmd', 'node server.js', '--plugin-port', '0'], {
    cwd: a,
    env,
  });
  expect(dev.code, dev.stderr).toBe(2);
  expect(dev.stderr).toContain(
    `--plugin-port 0 picks a free port, but plugin.webhookUrl (http://127.0.0.1:${fixed}/webhook) does not follow PORT`,
  );
  expect(dev.stderr).not.toContain('emulator');
});

test('a plugin that cannot listen on its first start (another program took the default port after dev checked it) moves to a free port, is redeployed and verified there', {
  timeout: 90_000,
}, async () => {
  const env = await freshMachine();
  const defaultPort = await freePort();
  const a = await project('alpha', defaultPort);
  // The first start finds its port taken between dev's check and its own listen: this process takes it
  // first, as another program would, then the plugin's server fails with EADDRINUSE.
  await writeFile(
    join(a, 'server.js'),
    `import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
if (!existsSync('took-the-port')) {
  writeFileSync('took-the-port', '');
  await new Promise((listening) => createServer().listen(Number(process.env.PORT), '127.0.0.1', listening));
}
${SERVER_JS}`,
  );
  const dev = spawnCli(['dev', '--cmd', 'node server.js'], { cwd: a, env });
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  const moved =
    /the plugin could not listen on port (\d+) \(in use by another process\): it gets PORT=(\d+) instead/.exec(
      dev.stderr(),
    );
  expect(moved, dev.stderr()).not.toBeNull();
  expect(Number(moved![1])).toBe(defaultPort);
  const port = Number(moved![2]);
  // dev says ready once the plugin answered its challenge there (after the installs).
  const ready = `ready: the plugin answers its challenge at http://127.0.0.1:${port}/webhook`;
  for (let waited = 0; !dev.stderr().includes(ready) && waited < 30_000; waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  expect(dev.stderr()).toContain(ready);
  await expectReply(a, env);
  expect(await dev.stop('SIGINT')).toMatchObject({ code: 0 });
});
