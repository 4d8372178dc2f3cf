import { beforeAll, describe, expect, test } from 'vitest';
import { spawnCli } from '../kit/cli-process.js';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import { receiver, refuse, type Receiver, until } from '../kit/index.js';

const t = useCliEnv();
let hook: Receiver;
let refusing: Receiver;
let good: string;
let bad: string;
beforeAll(async () => {
  [hook, refusing] = await Promise.all([receiver(), receiver(refuse())]);
  [good, bad] = await Promise.all([
    t
      .json([
        'plugins',
        'create',
        '--org',
        ORG,
        '--name',
        'Logged',
        '--type',
        'APP',
        '--webhook-url',
        hook.webhookUrl,
      ])
      .then((p) => p.id as string),
    t
      .json([
        'plugins',
        'create',
        '--org',
        ORG,
        '--name',
        'Refused',
        '--type',
        'APP',
        '--webhook-url',
        refusing.webhookUrl,
      ])
      .then((p) => p.id as string),
  ]);
  await Promise.all([t.cli(['plugins', 'verify', good]), t.cli(['plugins', 'verify', bad])]);
});

describe.concurrent('plugsmith logs', () => {
  test('a table of deliveries, filtered by plugin, type and status; --json gives the records', async () => {
    const [human, json, failed, typo] = await Promise.all([
      t.cli(['logs', '--plugin', good]),
      // Any case, as trigger takes an event kind.
      t.json(['logs', '--type', 'webhook_challenge']),
      t.cli(['logs', '--status', 'failed']),
      t.cli(['logs', '--type', 'WEBHOOK_CHALENGE']),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean WEBHOOK_CHALLENGE?)');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /^TIME\s+TYPE\s+PLUGIN\s+STATUS\s+ATTEMPTS\s+LATENCY\s+RESPONSE\s+ID$/m,
    );
    expect(human.stdout).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\s+WEBHOOK_CHALLENGE\\s+${good}\\s+delivered\\s+1\\s+\\d+ms\\s+HTTP 200\\s+dlv_`,
        'm',
      ),
    );
    expect(human.stdout).not.toContain(bad);
    expect(json.map((d: { pluginId: string }) => d.pluginId).sort()).toEqual(
      expect.arrayContaining([good, bad]),
    );
    expect(json.every((d: { type: string }) => d.type === 'WEBHOOK_CHALLENGE')).toBe(true);
    expect(failed.stdout).toMatch(
      new RegExp(`WEBHOOK_CHALLENGE\\s+${bad}\\s+failed\\s+1\\s+\\d+ms\\s+HTTP 500`),
    );
    expect(failed.stdout).not.toContain(good);
  });

  test('--follow --json prints each new attempt as one JSON line until interrupted', async ({
    onTestFinished,
  }) => {
    const follow = spawnCli(['logs', '--follow', '--json', '--plugin', good], {
      env: t.env,
      onTestFinished,
    });
    await until('logs --follow to start', () => follow.stderr().includes('following deliveries'));
    const verified = await t.json(['plugins', 'verify', good]);
    // Tests of this file run concurrently (a redelivery may show first): find this delivery's line.
    let line = JSON.parse(await follow.nextLine());
    for (let i = 0; i < 5 && line.delivery.id !== verified.deliveryId; i++)
      line = JSON.parse(await follow.nextLine());
    expect(line).toMatchObject({
      delivery: {
        id: verified.deliveryId,
        type: 'WEBHOOK_CHALLENGE',
        pluginId: good,
        status: 'delivered',
      },
      attempt: { number: 1, responseStatus: 200 },
    });
    expect(await follow.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });

  test('--follow prints a human line per attempt', async ({ onTestFinished }) => {
    const follow = spawnCli(['logs', '--follow', '--plugin', bad], { env: t.env, onTestFinished });
    await until('logs --follow to start', () => follow.stderr().includes('following deliveries'));
    await t.cli(['plugins', 'verify', bad]);
    expect(await follow.nextLine()).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d  WEBHOOK_CHALLENGE\\s+failed  HTTP 500  \\d+ms  dlv_\\S+ ${bad}`,
      ),
    );
    await follow.stop('SIGINT');
  });

  test('redeliver sends the event again and shows the new delivery; a challenge is not redelivered (6)', async () => {
    // A real event for the verified plugin: trigger installs a sample instance.
    const installed = await t.json(['trigger', 'PLUGIN_INSTALLED', '--plugin', good]);
    const first = installed.delivery as { id: string; eventId: string };
    const again = await t.cli(['logs', 'redeliver', first.id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`^delivery dlv_\\S+ delivered .*\\(redelivery of ${first.id}\\)$`, 'm'),
    );
    const json = await t.cli(['logs', 'redeliver', first.id, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      redeliveryOf: first.id,
      eventId: first.eventId,
      type: 'PLUGIN_INSTALLED',
    });

    // Redelivery goes to the plugin's current URL: once it points at the refusing webhook, it fails (exit 1).
    const moving = await t.json([
      'plugins',
      'create',
      '--org',
      ORG,
      '--name',
      'Moving',
      '--type',
      'APP',
      '--webhook-url',
      hook.webhookUrl,
    ]);
    expect((await t.cli(['plugins', 'verify', moving.id])).code).toBe(0);
    const delivered = (await t.json(['trigger', 'PLUGIN_INSTALLED', '--plugin', moving.id]))
      .delivery as { id: string };
    expect(
      (await t.cli(['plugins', 'update', moving.id, '--webhook-url', refusing.webhookUrl])).code,
    ).toBe(0);
    const failing = await t.cli(['logs', 'redeliver', delivered.id]);
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toMatch(/HTTP 500/);

    const [challenge] = await t.json([
      'logs',
      '--plugin',
      good,
      '--type',
      'WEBHOOK_CHALLENGE',
      '--limit',
      '1',
    ]);
    const refused = await t.cli(['logs', 'redeliver', challenge.id]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('plugsmith plugins verify');
    const missing = await t.cli(['logs', 'redeliver', 'dlv_missing']);
    expect(missing.code).toBe(4);
  });
});
