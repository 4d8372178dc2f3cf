import { beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import {
  api,
  emulator,
  emulatorEnv,
  receiver,
  type Api,
  type Cli,
  type Receiver,
} from '../kit/index.js';
import { spawnedCli } from '../kit/spawn.js';
import { cliTerminal, type Terminal } from '../kit/terminal.js';

// `plugsmith logs retry|cancel|redeliver`, what the dashboard does with deliveries, from the CLI: the
// built CLI spawned against a real emulator (port 0) and a real webhook whose answers the test turns
// from failing to accepting. Retries are a minute apart, so a failed delivery stays pending.

let emu: Emulator;
let hook: Receiver;
let owner: Api;
let plugsmith: Cli;
let pluginId: string;
/** What the webhook answers events other than the challenge. */
let answer = 500;

beforeAll(async () => {
  emu = await emulator({ delivery: { schedule: [60_000, 60_000], timeoutMs: 3000, jitter: 0 } });
  hook = await receiver((request, res) => {
    const challenge =
      request.json?.type === 'WEBHOOK_CHALLENGE' ? request.json.data?.challenge : undefined;
    if (challenge !== undefined)
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ challenge }));
    res
      .writeHead(answer, { 'content-type': 'application/json' })
      .end(JSON.stringify({ answered: answer }));
  });
  owner = api(emu, { token: `Bearer ${emu.token}` });
  plugsmith = await spawnedCli(emulatorEnv(emu));
  const plugin = await plugsmith.json([
    'plugins',
    'create',
    '--org',
    emu.orgId!,
    '--name',
    'Flaky app',
    '--type',
    'APP',
    '--webhook-url',
    hook.webhookUrl,
  ]);
  pluginId = plugin.id;
  expect((await plugsmith.run(['plugins', 'verify', pluginId])).code).toBe(0);
});

/** Installs the plugin on a new app: its PLUGIN_INSTALLED is a real delivery; resolves once its first attempt is logged. */
async function installed(appId: string) {
  const instance = await owner.data('POST', `/api/apps/${appId}/plugins`, {
    name: appId,
    pluginId,
    events: [],
    scopes: [],
    orgId: emu.orgId,
  });
  await expect
    .poll(
      () =>
        emu.deliveries.list().find((d) => d.pluginInstanceId === instance.id)?.attempts.length ?? 0,
    )
    .toBe(1);
  return emu.deliveries.list().find((d) => d.pluginInstanceId === instance.id)!;
}

/** What the webhook received for one event (every attempt and redelivery of it carries its id). */
function received(eventId: string) {
  return hook.received.filter((r) => r.json?.id === eventId);
}

describe('plugsmith logs retry', () => {
  test("runs a pending delivery's next attempt now and shows how it went; exit 1 while the webhook still refuses", async () => {
    answer = 500;
    const pending = await installed('app_retry');
    expect(pending.status).toBe('pending');

    const refused = await plugsmith.run(['logs', 'retry', pending.id]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toMatch(
      new RegExp(`^delivery ${pending.id} pending \\(HTTP 500, \\d+ms, 2 attempts\\)`, 'm'),
    );
    expect(refused.stderr).toMatch(
      /the webhook did not accept the attempt; the next retry is due at \d{4}-/,
    );

    answer = 200;
    const accepted = await plugsmith.run(['logs', 'retry', pending.id]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(
      new RegExp(`^delivery ${pending.id} delivered \\(HTTP 200, \\d+ms, 3 attempts\\)$`, 'm'),
    );
    // Three attempts of the one event, each really sent.
    expect(received(pending.eventId)).toHaveLength(3);
    expect(emu.deliveries.get(pending.id)).toMatchObject({
      status: 'delivered',
      nextAttemptAt: null,
    });

    // No longer pending: the error names the command that sends it again.
    const done = await plugsmith.run(['logs', 'retry', pending.id]);
    expect(done.code).toBe(6);
    expect(done.stderr).toContain(
      `delivery ${pending.id} is delivered: only a pending delivery can be retried now; send its event again with \`plugsmith logs redeliver ${pending.id}\``,
    );
    const missing = await plugsmith.run(['logs', 'retry', 'dlv_missing']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('`plugsmith logs` lists the deliveries');
  });

  test('--no-wait --json answers with the delivery as the attempt starts', async () => {
    answer = 500;
    const pending = await installed('app_nowait');
    answer = 200;
    const started = await plugsmith.json(['logs', 'retry', pending.id, '--no-wait']);
    expect(started).toMatchObject({ id: pending.id, status: 'pending' });
    expect(started.attempts).toHaveLength(1);
    await expect.poll(() => emu.deliveries.get(pending.id)?.status).toBe('delivered');
    expect(emu.deliveries.get(pending.id)!.attempts).toHaveLength(2);
  });
});

describe('plugsmith logs cancel', () => {
  test("ends a pending delivery's retries: failed, never sent again; a second cancel is a conflict", async () => {
    answer = 500;
    const pending = await installed('app_cancel');
    const cancelled = await plugsmith.run(['logs', 'cancel', pending.id]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain(
      `Cancelled the retries of delivery ${pending.id}: it is failed after 1 attempt and is never sent again`,
    );
    expect(emu.deliveries.get(pending.id)).toMatchObject({
      status: 'failed',
      nextAttemptAt: null,
      cancelledAt: expect.any(String),
    });

    const again = await plugsmith.run(['logs', 'cancel', pending.id, '--json']);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain(
      `delivery ${pending.id} is failed: only a pending delivery has retries to cancel; send its event again with \`plugsmith logs redeliver ${pending.id}\``,
    );

    const other = await installed('app_cancel_json');
    const json = await plugsmith.json(['logs', 'cancel', other.id]);
    expect(json).toMatchObject({ id: other.id, status: 'failed', cancelledAt: expect.any(String) });
  });
});

describe('plugsmith logs redeliver with filters', () => {
  test('resends every delivery the filters match, after --yes without a terminal; challenges never', async () => {
    answer = 500;
    const since = new Date().toISOString();
    const one = await installed('app_bulk_1');
    const two = await installed('app_bulk_2');
    const filters = ['--plugin', pluginId, '--since', since, '--failed-once'];
    // What `plugsmith logs` shows for the filters is what gets resent.
    const shown = await plugsmith.json(['logs', ...filters]);
    expect(shown.map((d: { id: string }) => d.id).sort()).toEqual([one.id, two.id].sort());

    const before = emu.deliveries.list().length;
    const asked = await plugsmith.run(['logs', 'redeliver', ...filters]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('pass --yes');
    expect(emu.deliveries.list().length).toBe(before);

    answer = 200;
    const result = await plugsmith.json(['logs', 'redeliver', ...filters, '--yes']);
    expect(result).toMatchObject({ count: 2, skipped: 0 });
    expect(result.deliveries).toHaveLength(2);
    for (const id of result.deliveries) {
      await expect.poll(() => emu.deliveries.get(id)?.status).toBe('delivered');
      expect([one.id, two.id]).toContain(emu.deliveries.get(id)!.redeliveryOf);
    }
    // The same events, sent again: each has reached the webhook twice now.
    expect(received(one.eventId)).toHaveLength(2);
    expect(received(two.eventId)).toHaveLength(2);

    // The plugin's whole log: its challenge matches too, and is left out.
    const human = await plugsmith.run([
      'logs',
      'redeliver',
      '--plugin',
      pluginId,
      '--type',
      'WEBHOOK_CHALLENGE',
      '--yes',
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(
      `No delivery to resend: none matches --plugin ${pluginId} --type WEBHOOK_CHALLENGE but challenges, which are never resent`,
    );
    const none = await plugsmith.run([
      'logs',
      'redeliver',
      '--search',
      'nothing-like-this',
      '--yes',
    ]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain(
      'No delivery to resend: none matches --search "nothing-like-this"',
    );
  });

  test('an id and filters together, or neither, is a usage error naming both forms', async () => {
    const both = await plugsmith.run(['logs', 'redeliver', 'dlv_1', '--status', 'failed']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give a delivery id or filters, not both');
    const neither = await plugsmith.run(['logs', 'redeliver']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('`plugsmith logs redeliver dlv_123`');
    expect(neither.stderr).toContain('`plugsmith logs redeliver --status failed --since 1h`');
    const follow = await plugsmith.run(['logs', '--follow', '--since', '1h']);
    expect(follow.code).toBe(2);
    expect(follow.stderr).toContain('drop --since');
    const badStatus = await plugsmith.run(['logs', '--http-status', '600']);
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('--http-status takes statuses (500), classes (5xx) or none');
  });

  test('in a terminal it asks first, naming the count and the filters; no resends nothing', async () => {
    answer = 500;
    const pending = await installed('app_tty');
    // Its instance's id picks it out of the log.
    const filters = ['--plugin', pluginId, '--search', pending.pluginInstanceId!];
    const named = `--plugin ${pluginId} --search "${pending.pluginInstanceId}"`;
    const terminal = cliInTerminal(['logs', 'redeliver', ...filters]);
    await terminal.waitFor(
      new RegExp(
        `Send the events of 1 delivery matching ${named} again, each as a new delivery\\? \\(y/N\\)`,
      ),
    );
    terminal.type('n');
    terminal.press('Enter');
    expect(await terminal.waitForExit()).toBe(2);
    const declined = terminal.screen();
    expect(declined).toContain(`nothing resent: 1 delivery match ${named}`);
    expect(emu.deliveries.list().filter((d) => d.redeliveryOf === pending.id)).toHaveLength(0);

    answer = 200;
    const again = cliInTerminal(['logs', 'redeliver', ...filters]);
    await again.waitFor(/again, each as a new delivery\? \(y\/N\)/);
    again.type('y');
    again.press('Enter');
    expect(await again.waitForExit()).toBe(0);
    const done = again.screen();
    expect(done).toContain(`Resent 1 delivery matching ${named}, as new deliveries:`);
    const [resent] = emu.deliveries.list().filter((d) => d.redeliveryOf === pending.id);
    expect(done).toContain(resent.id);
    // The resend cancelled the original's retries: the event does not go out twice more.
    expect(emu.deliveries.get(pending.id)).toMatchObject({
      status: 'failed',
      cancelledAt: expect.any(String),
    });
  });
});

/** The built CLI in a real terminal (CI unset) pointed at the emulator. */
function cliInTerminal(args: string[]): Terminal {
  return cliTerminal(args, { env: { ...plugsmith.env, NO_COLOR: '1' }, columns: 160 });
}
