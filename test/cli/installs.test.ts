import { beforeAll, describe, expect, test } from 'vitest';
import { createWebhookHandler, type WebhookEvent } from '../../src/shared/webhooks/index.js';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import { server } from '../kit/index.js';

// `handlers` and `apps` install EVENT_HANDLER and APP plugins the way `providers` installs data
// providers, so no one has to curl the agents and apps routes.

const t = useCliEnv();
const events: WebhookEvent[] = [];

/** A plugin with a real, verified webhook server that records what it receives. */
async function verifiedPlugin(
  type: string,
  pluginEvents: string[],
  scopes: string[],
): Promise<string> {
  const created = await t.json([
    'plugins',
    'create',
    '--org',
    ORG,
    '--name',
    `${type} plugin`,
    '--type',
    type,
    ...(pluginEvents.length ? ['--events', pluginEvents.join(',')] : []),
    ...(scopes.length ? ['--scopes', scopes.join(',')] : []),
  ]);
  const secret = (await t.cli(['plugins', 'secret', created.id])).stdout.trim();
  const record = (event: WebhookEvent) => void events.push(event);
  const webhook = await server(
    createWebhookHandler({
      secret,
      on: {
        WEBHOOK_CHALLENGE: record,
        PLUGIN_INSTALLED: record,
        PLUGIN_UNINSTALLED: record,
        AGENT_MESSAGE_RECEIVED: record,
      },
    }),
  );
  await t.json(['plugins', 'update', created.id, '--webhook-url', `${webhook.url}/webhook`]);
  expect((await t.json(['plugins', 'verify', created.id])).verified).toBe(true);
  return created.id;
}

let handlerId: string;
let appId: string;
beforeAll(async () => {
  [handlerId, appId] = await Promise.all([
    verifiedPlugin('EVENT_HANDLER', ['AGENT_MESSAGE_RECEIVED'], ['AGENT_MESSAGE_WRITE']),
    verifiedPlugin('APP', [], []),
  ]);
});

describe('plugsmith handlers and apps', () => {
  test('handlers add, list and remove an EVENT_HANDLER on an agent; the plugin hears of both', async () => {
    const added = await t.json([
      'handlers',
      'add',
      'agent_nova',
      '--plugin',
      handlerId,
      '--scopes',
      'AGENT_MESSAGE_WRITE',
      '--dispatch-mode',
      'SYNC',
    ]);
    expect(added).toMatchObject({
      pluginId: handlerId,
      entityType: 'AGENT',
      entityId: 'agent_nova',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      eventDispatchMode: 'SYNC',
    });
    const listed = await t.cli(['handlers', 'list', 'agent_nova']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`${added.id}\\s+EVENT_HANDLER plugin\\s+${handlerId}`),
    );
    const removed = await t.cli(['handlers', 'remove', 'agent_nova', added.id, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed event handler ${added.id}`);
    expect(await t.json(['handlers', 'list', 'agent_nova'])).toEqual([]);
    await expect
      .poll(() => events.filter((e) => e.pluginInstanceId === added.id).map((e) => e.type))
      .toEqual(['PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED']);
  });

  test('apps add, list and remove an APP plugin on an app (the org comes from --org or the profile)', async () => {
    const added = await t.json(['apps', 'add', 'app_main', '--plugin', appId, '--org', ORG]);
    expect(added).toMatchObject({
      pluginId: appId,
      entityType: 'APP',
      entityId: 'app_main',
      orgId: ORG,
    });
    expect((await t.json(['apps', 'list', 'app_main'])).map((i: { id: string }) => i.id)).toEqual([
      added.id,
    ]);
    const removed = await t.json(['apps', 'remove', 'app_main', added.id, '--yes']);
    expect(removed).toBeTruthy();
    expect(await t.json(['apps', 'list', 'app_main'])).toEqual([]);
  });

  test('the wrong plugin type is refused by the platform with the reason (exit 5); remove without --yes is usage (2)', async () => {
    const wrong = await t.cli(['handlers', 'add', 'agent_nova', '--plugin', appId]);
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain('EVENT_HANDLER');
    const noYes = await t.cli(['apps', 'remove', 'app_main', 'pin_x']);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('--yes');
  });
});
