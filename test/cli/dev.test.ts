import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from 'undici';
import { expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { json, ok, receiver, runCliInProcess, until } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { stateFileOf } from '../kit/emulator-state.js';

/** The plugin (test/fixtures/plugins/replying-handler.mjs, which answers every message), writing its pid down. */
const SERVER_JS = `
import { writeFileSync } from 'node:fs';
import ${JSON.stringify(pathToFileURL(resolve(import.meta.dirname, '../fixtures/plugins/replying-handler.mjs')).href)};
writeFileSync('plugin.pid', String(process.pid));
`;

function manifest(description: string) {
  return JSON.stringify({
    plugin: {
      name: 'Dev loop plugin',
      description,
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
    },
    actions: [{ name: 'lookup', argsSchema: { $ref: './schemas/lookup-args.json' } }],
    installs: [{ name: 'on nova', agent: 'agent_nova' }],
  });
}

const argsSchema = (required: string[]) => ({
  type: 'object',
  properties: { query: { type: 'string' }, limit: { type: 'integer' } },
  required,
});

test('dev: emulator, deploy, plugin started and verified, installs, live deliveries, redeploy on change, crash reported and recovered', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-'));
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-cfg-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
  });
  await writeFile(join(dir, 'server.js'), SERVER_JS);
  await writeFile(join(dir, 'plugsmith.json'), manifest('first'));
  await mkdir(join(dir, 'schemas'));
  await writeFile(join(dir, 'schemas', 'lookup-args.json'), JSON.stringify(argsSchema(['query'])));
  const port = await freePort();
  // --open runs BROWSER with the dashboard's login link: this one writes it down.
  const opened = join(configDir, 'opened.txt');
  await writeFile(join(configDir, 'browser.sh'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, {
    mode: 0o755,
  });
  const env = {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
    BROWSER: join(configDir, 'browser.sh'),
  };
  const dev = spawnCli(
    [
      'dev',
      '--cmd',
      'node server.js',
      '--plugin-port',
      String(port),
      '--emulator-port',
      '0',
      '--messaging-port',
      '0',
      '--open',
    ],
    { cwd: dir, env },
  );

  // The challenge and the manifest's install show up live, each as one line.
  await dev.lineMatching(/WEBHOOK_CHALLENGE\s+delivered {2}HTTP 200/);
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered {2}HTTP 200/);
  expect(dev.stderr()).toMatch(
    /deployed Dev loop plugin \(plg_\S+\): create plugin Dev loop plugin/,
  );
  expect(dev.stderr()).toContain(`webhook verified: http://127.0.0.1:${port}/webhook`);
  expect(dev.stderr()).toMatch(/installed on nova \(pin_/);
  expect(dev.stderr()).toContain(`plugin  plugin listening on ${port}`);

  // Other terminals find the emulator (state file) and the plugin (project state).
  const stateFile = stateFileOf(configDir, dir);
  const state = JSON.parse(await readFile(stateFile, 'utf8'));
  const dashboardUrl = /Dashboard: (\S+)/.exec(dev.stderr())?.[1];
  expect(dashboardUrl).toMatch(
    new RegExp(`^${state.url}/_emulator/dashboard/#login=[A-Za-z0-9_-]+$`),
  );
  // The browser gets a private page that redirects to the link: the login code is in no argv.
  const openedPage = await readFile(opened, 'utf8');
  expect(openedPage).toMatch(/^file:\/\//);
  expect(openedPage).not.toContain(dashboardUrl!.split('#login=')[1]);
  expect(await readFile(fileURLToPath(openedPage), 'utf8')).toContain(
    `content="0;url=${dashboardUrl}"`,
  );
  // The commands of another terminal run in this process: dev is the process under test.
  const cliEnv = {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: state.url,
    PLUGSMITH_TOKEN: state.token,
    PLUGSMITH_MESSAGING_URL: state.messagingUrl,
    PLUGSMITH_API_KEY: state.apiKey,
  };
  const triggered = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
    cwd: dir,
    env: cliEnv,
  });
  expect(triggered.code, triggered.stderr).toBe(0);
  const deliveryId = JSON.parse(triggered.stdout).delivery.id;
  // The plugin answered with the installation token dev's install gave it.
  expect(JSON.parse(triggered.stdout).reply).toMatchObject({
    sender: 'CHARACTER',
    content: expect.stringMatching(/^You said: /),
  });
  expect(await dev.lineMatching(/AGENT_MESSAGE_RECEIVED/)).toMatch(
    new RegExp(`delivered  HTTP 200  \\d+ms  ${deliveryId}`),
  );

  // A manifest change is redeployed.
  const projectState = JSON.parse(await readFile(join(dir, '.plugsmith', 'state.json'), 'utf8'));
  const pluginId = (Object.values(projectState.targets)[0] as { pluginId: string }).pluginId;
  await writeFile(join(dir, 'plugsmith.json'), manifest('second'));
  await until('the redeploy', async () => {
    const response = await request(`${state.url}/api/plugins/${pluginId}`, {
      headers: { authorization: `Bearer ${state.token}` },
    });
    const body = (await response.body.json()) as { data: { description: string } };
    return body.data.description === 'second' ? true : undefined;
  });
  await until('the redeploy note', () =>
    /update plugin Dev loop plugin \(description\)/.test(dev.stderr()) ? true : undefined,
  );

  // So is a change to a schema file the manifest's $ref reads, in a folder of its own.
  await writeFile(
    join(dir, 'schemas', 'lookup-args.json'),
    JSON.stringify(argsSchema(['query', 'limit'])),
  );
  await until('the schema redeploy', async () => {
    const response = await request(`${state.url}/api/plugins/${pluginId}/actions`, {
      headers: { authorization: `Bearer ${state.token}` },
    });
    const body = (await response.body.json()) as {
      data: Array<{ name: string; argsSchema: { required?: string[] } }>;
    };
    return body.data.find((a) => a.name === 'lookup')?.argsSchema.required?.length === 2
      ? true
      : undefined;
  });
  await until('the schema redeploy note', () =>
    /update action lookup \(argsSchema\)/.test(dev.stderr()) ? true : undefined,
  );

  // The secret rotated from another terminal with no grace period: the plugin, started with the
  // old one, refuses the next delivery (401); dev restarts it with the new secret, and the
  // delivery's retry goes through.
  const rotated = await runCliInProcess(
    ['plugins', 'secret', 'rotate', pluginId, '--grace', '0', '--json'],
    { cwd: dir, env: cliEnv },
  );
  expect(rotated.code, rotated.stderr).toBe(0);
  const refused = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
    cwd: dir,
    env: cliEnv,
  });
  const refusedId = JSON.parse(refused.stdout).delivery.id;
  await dev.lineMatching(new RegExp(`AGENT_MESSAGE_RECEIVED.*HTTP 401.*${refusedId}`));
  await until('the restart with the new secret', () =>
    dev
      .stderr()
      .includes(
        "the plugin's webhook secret changed (PLUGSMITH_WEBHOOK_SECRET): restarting the plugin",
      )
      ? true
      : undefined,
  );
  await dev.lineMatching(
    new RegExp(
      `AGENT_MESSAGE_RECEIVED\\s+delivered  HTTP 200  \\d+ms  attempt \\d+  .*${refusedId}`,
    ),
  );

  // Killing the plugin is reported; it is restarted and answers again.
  const pid = Number(await readFile(join(dir, 'plugin.pid'), 'utf8'));
  process.kill(pid, 'SIGKILL');
  await until('the crash report', () =>
    /the plugin exited \((signal SIGKILL|code \d+)\); restarting in/.test(dev.stderr())
      ? true
      : undefined,
  );
  await until('the plugin to come back', () =>
    dev.stderr().includes(`the plugin is back at http://127.0.0.1:${port}/webhook`)
      ? true
      : undefined,
  );
  const again = await runCliInProcess(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
    cwd: dir,
    env: cliEnv,
  });
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout).reply).toMatchObject({ sender: 'CHARACTER' });

  expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
  // The emulator it started is gone with it, and so is its state file and the plugin.
  expect(existsSync(stateFile)).toBe(false);
  const newPid = Number(await readFile(join(dir, 'plugin.pid'), 'utf8'));
  await until(
    'the plugin to stop',
    () => {
      try {
        process.kill(newPid, 0);
        return undefined;
      } catch {
        return true;
      }
    },
    30_000,
  );
}, 300_000);

test('dev --base-url asks the target for its health once; a target that does not answer is exit 7, naming its URL', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-target-'));
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-target-cfg-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
  });
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'Target plugin',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
        webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
      },
    }),
  );
  // A healthy emulator whose every other route fails: dev stops at its first deploy.
  const server = await receiver((req, res) => {
    if (req.url === '/_emulator/health')
      return ok(res, { status: 'ok', storeId: 'st_target', pid: 1 });
    json(res, 500, { ok: false, error: { message: 'broken', error: 'SERVER_ERROR' } });
  });
  await writeFile(
    join(configDir, 'config.json'),
    JSON.stringify({
      current: 'target',
      profiles: { target: { baseUrl: server.url, token: 'pst_target', orgId: 'org_target' } },
    }),
  );
  const env = {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_API_KEY: '',
    PLUGSMITH_ADMIN_TOKEN: '',
  };
  const args = [
    'dev',
    '--cmd',
    'node -e 0',
    '--plugin-port',
    String(await freePort()),
    '--base-url',
    server.url,
    '--messaging-url',
    server.url,
  ];
  const failed = await runCli(args, { cwd: dir, env });
  expect(failed.stderr).toContain('broken');
  expect(server.received.filter((r) => r.url === '/_emulator/health')).toHaveLength(1);

  await server.close();
  const dead = await runCli(args, { cwd: dir, env });
  expect(dead.code, dead.stderr).toBe(7);
  expect(dead.stderr).toContain(
    `no emulator answers at ${server.url} (from --base-url): GET ${server.url}/_emulator/health failed`,
  );
});
