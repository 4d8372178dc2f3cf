import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import { freePort } from '../kit/ports.js';

// Every template passes every check: a project made by `plugsmith init` (this package symlinked in
// as its `plugsmith` dependency, and this package's standardwebhooks as its own: no npm install),
// deployed to the emulator, its plugin started from the project's own sources, and `plugsmith check`
// spawned in the project with no arguments but the manifest: the URL comes from plugsmith.json, the
// plugin and its secret from the deploy state.

const t = useCliEnv();
const ROOT = resolve(import.meta.dirname, '../..');

interface RunningPlugin {
  webhookUrl: string;
  close(): Promise<void>;
}
type PluginConfig = Record<string, unknown>;
type StartPlugin = (config: PluginConfig) => Promise<RunningPlugin>;

const running: RunningPlugin[] = [];
afterAll(async () => {
  for (const plugin of running) await plugin.close();
});

/** Scaffolds, deploys and starts a template's plugin (an EVENT_HANDLER is installed on the seed's agent). */
async function project(
  type: 'EVENT_HANDLER' | 'DATA_PROVIDER' | 'APP',
  edit?: (dir: string) => Promise<void>,
) {
  const dir = join(t.dir, `${type.toLowerCase()}${edit ? '-edited' : ''}`);
  const init = await t.cli(['init', dir, '--type', type, '--yes']);
  expect(init.code, init.stderr).toBe(0);
  await edit?.(dir);
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules/plugsmith'), 'dir');
  // The project's runtime dependency (a devDependency of this package), with its own dependencies beside it.
  await symlink(
    join(ROOT, 'node_modules/standardwebhooks'),
    join(dir, 'node_modules/standardwebhooks'),
    'dir',
  );
  const port = await freePort();
  const manifest = join(dir, 'plugsmith.json');
  const deployed = await t.json(['deploy', '--manifest', manifest, '--org', ORG], {
    PORT: String(port),
  });
  const pluginId: string = deployed.pluginId ?? deployed.plugin?.id;
  expect(pluginId, JSON.stringify(deployed)).toMatch(/^plg_/);
  const { startPlugin } = (await import(pathToFileURL(join(dir, 'src/plugin.ts')).href)) as {
    startPlugin: StartPlugin;
  };
  const { configFromEnv } = (await import(pathToFileURL(join(dir, 'src/config.ts')).href)) as {
    configFromEnv(env: NodeJS.ProcessEnv): PluginConfig;
  };
  const start = async (secrets: string) => {
    const config = configFromEnv({
      PLUGSMITH_WEBHOOK_SECRET: secrets,
      PORT: String(port),
      PLUGSMITH_BASE_URL: t.emu.url,
      DATA_DIR: join(dir, '.data'),
    });
    const plugin = await startPlugin(config);
    running.push(plugin);
    return { plugin, config };
  };
  const secret = (await t.cli(['plugins', 'secret', pluginId])).stdout.trim();
  const { plugin } = await start(secret);
  const verified = await t.json(['plugins', 'verify', pluginId]);
  expect(verified.verified, JSON.stringify(verified)).toBe(true);
  if (type === 'EVENT_HANDLER')
    await t.json([
      'handlers',
      'add',
      'agent_nova',
      '--plugin',
      pluginId,
      '--scopes',
      'AGENT_MESSAGE_WRITE',
      '--dispatch-mode',
      'SYNC',
    ]);
  // In the project, as its author would run it: no URL, no plugin id, no secret on the command line.
  const check = (extra: string[] = []) =>
    t.cli(['check', '--manifest', manifest, '--json', ...extra], { PORT: String(port) });
  return { dir, pluginId, secret, plugin, start, check };
}

function statuses(report: {
  checks: Array<{ id: string; status: string }>;
}): Record<string, string> {
  return Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
}

describe('plugsmith check against every template', () => {
  test('EVENT_HANDLER: every check passes, the side-effect ones included; after a rotation the template runs with both secrets and passes again', async () => {
    const p = await project('EVENT_HANDLER');
    const run = await p.check();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      ok: true,
      pluginId: p.pluginId,
      url: p.plugin.webhookUrl,
      summary: { failed: 0, skipped: 0 },
    });
    expect(Object.values(statuses(report)).every((s) => s === 'passed')).toBe(true);

    // Rotate: the running plugin still has the old secret only, and deliveries carry both signatures.
    const rotated = await t.json(['plugins', 'secret', 'rotate', p.pluginId, '--grace', '1h']);
    expect((await t.json(['plugins', 'verify', p.pluginId])).verified).toBe(true);
    // Restarted with "new, old" (PLUGSMITH_WEBHOOK_SECRET as a list), it passes the check, signed with the new secret.
    await p.plugin.close();
    const restarted = await p.start(`${rotated.webhookSecret}, ${p.secret}`);
    expect(restarted.config.webhookSecret).toEqual([rotated.webhookSecret, p.secret]);
    const again = await p.check();
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  test('EVENT_HANDLER with signature verification taken out of src/server.ts: exactly the five signature checks fail, each with its fix', async () => {
    // What an author might write instead of createWebhookHandler: parse the JSON and dispatch.
    const unverified = `{
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', async () => {
        const event = JSON.parse(text);
        const handler = (options.on as Record<string, ((e: unknown) => unknown) | undefined>)[event.type];
        const result = event.type === 'WEBHOOK_CHALLENGE' ? { challenge: event.data.challenge } : ((await handler?.(event)) ?? { ok: true });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      });
      return;
    }`;
    const p = await project('EVENT_HANDLER', async (dir) => {
      const file = join(dir, 'src/server.ts');
      const source = await readFile(file, 'utf8');
      expect(source).toContain("if (path === '/webhook') return void webhook(req, res);");
      await writeFile(
        file,
        source.replace(
          "if (path === '/webhook') return void webhook(req, res);",
          `if (path === '/webhook') ${unverified}`,
        ),
      );
    });
    const run = await p.check();
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    const failed = report.checks.filter((c: { status: string }) => c.status === 'failed');
    expect(failed.map((c: { id: string }) => c.id)).toEqual([
      'missing-signature',
      'wrong-signature',
      'tampered-body',
      'replayed-timestamp',
      'future-timestamp',
    ]);
    for (const check of failed) {
      expect(check.received).toMatch(/^HTTP 200 .*; wrote 1 message$/);
      expect(check.fix).toMatch(/createWebhookHandler/);
    }
  });

  for (const type of ['DATA_PROVIDER', 'APP'] as const) {
    test(`${type}: every check passes; the two that count an EVENT_HANDLER's messages are skipped with the reason`, async () => {
      const p = await project(type);
      const run = await p.check();
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = JSON.parse(run.stdout);
      const byId = statuses(report);
      expect(
        Object.entries(byId)
          .filter(([, s]) => s !== 'passed')
          .map(([id]) => id),
      ).toEqual(['valid-delivery', 'duplicate-delivery']);
      expect(byId['valid-delivery']).toBe('skipped');
      expect(report.checks.find((c: { id: string }) => c.id === 'duplicate-delivery').fix).toMatch(
        new RegExp(`no work of an? ${type} to count`),
      );
    });
  }
});
