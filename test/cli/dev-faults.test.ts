import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { expect, onTestFinished, test } from 'vitest';
import { spawnCli } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';

const WEBHOOKS = pathToFileURL(resolve(import.meta.dirname, '../../dist/webhooks/index.js')).href;

/** A tiny plugin: a node:http webhook server verifying signatures with the built plugsmith/webhooks. */
const SERVER_JS = `
import { createServer } from 'node:http';
import { createWebhookHandler } from ${JSON.stringify(WEBHOOKS)};
const handler = createWebhookHandler({ secret: process.env.PLUGSMITH_WEBHOOK_SECRET, on: {} });
createServer(handler).listen(Number(process.env.PORT), '127.0.0.1');
`;

const MANIFEST = JSON.stringify({
  plugin: {
    name: 'Faults plugin',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
  },
  installs: [{ name: 'on nova', agent: 'agent_nova' }],
});

test('dev --faults sets the profile on a running emulator, shows faulted attempts, and turns it off when it stops', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-faults-'));
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-dev-faults-cfg-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
  });
  await writeFile(join(dir, 'server.js'), SERVER_JS);
  await writeFile(join(dir, 'plugsmith.json'), MANIFEST);
  const env = {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  };
  // Started in the project: dev run there uses it.
  const emulator = spawnCli(
    ['emulator', 'start', '--in-memory', '--port', '0', '--messaging-port', '0', '--json'],
    { cwd: dir, env },
  );
  const state = JSON.parse(await emulator.nextLine()) as { url: string; adminToken: string };
  const faults = async () => {
    const response = await request(`${state.url}/_emulator/faults`, {
      headers: { 'x-plugsmith-admin': state.adminToken },
    });
    return (
      (await response.body.json()) as { data: { on: boolean; profile: string; seed: string } }
    ).data;
  };
  expect((await faults()).on).toBe(false);

  const port = await freePort();
  const dev = spawnCli(
    [
      'dev',
      '--cmd',
      'node server.js',
      '--plugin-port',
      String(port),
      '--faults',
      'duplicate=1',
      '--faults-seed',
      '3',
    ],
    { cwd: dir, env },
  );
  // The challenge is never faulted; the install's delivery is sent twice, and its line says so.
  await dev.lineMatching(/WEBHOOK_CHALLENGE\s+delivered {2}HTTP 200/);
  expect(await dev.lineMatching(/PLUGIN_INSTALLED/)).not.toContain('[fault');
  expect(await dev.lineMatching(/PLUGIN_INSTALLED/)).toMatch(/attempt 2 {2}\[fault: duplicate\]/);
  expect(dev.stderr()).toContain(
    'fault injection on: duplicate=1 (seed 3; reproduce with --faults-seed 3)',
  );
  expect(await faults()).toMatchObject({ on: true, profile: 'duplicate=1', seed: '3' });

  expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
  expect((await faults()).on).toBe(false);
  await emulator.stop();
}, 300_000);
