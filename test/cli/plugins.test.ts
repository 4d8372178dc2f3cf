import { beforeAll, describe, expect, test } from 'vitest';
import { jsonFile, ORG, useCliEnv, VIEWER_TOKEN } from '../kit/cli-env.js';
import { receiver, refuse, type Receiver } from '../kit/index.js';

const t = useCliEnv();
let hook: Receiver;
let refusing: Receiver;
beforeAll(async () => {
  hook = await receiver();
  refusing = await receiver(refuse());
});

describe.concurrent('plugsmith plugins', { timeout: 120_000 }, () => {
  test('create (human and --json), get, list, update, secret, delete', async () => {
    const schema = await jsonFile(t.dir, 'inputs.json', {
      type: 'object',
      properties: { apiKey: { type: 'string' } },
    });
    const human = await t.cli([
      'plugins',
      'create',
      '--org',
      ORG,
      '--name',
      'Human plugin',
      '--type',
      'APP',
      '--tags',
      'a,b',
      '--tags',
      'c',
      '--inputs-schema',
      schema,
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^id\s+plg_/m);
    expect(human.stdout).toMatch(/^name\s+Human plugin$/m);
    expect(human.stdout).not.toContain('whsec_');

    const created = await t.json([
      'plugins',
      'create',
      '--org',
      ORG,
      '--name',
      'Json plugin',
      '--type',
      'EVENT_HANDLER',
      '--events',
      'AGENT_MESSAGE_RECEIVED',
      '--scopes',
      'AGENT_MESSAGE_WRITE',
      '--description',
      'greets',
      '--public',
    ]);
    expect(created).toMatchObject({
      name: 'Json plugin',
      type: 'EVENT_HANDLER',
      orgId: ORG,
      events: ['AGENT_MESSAGE_RECEIVED'],
      isPublic: true,
      webhookUrlIsVerified: false,
    });
    expect(created.id).toMatch(/^plg_/);

    const [got, gotHuman, listed, listedHuman] = await Promise.all([
      t.json(['plugins', 'get', created.id]),
      t.cli(['plugins', 'get', created.id]),
      t.json(['plugins', 'list', '--org', ORG, '--search', 'Json plugin']),
      t.cli(['plugins', 'list', '--org', ORG, '--filter', 'type=EVENT_HANDLER']),
    ]);
    expect(got).toMatchObject({ id: created.id, description: 'greets' });
    expect(gotHuman.stdout).toMatch(/^description\s+greets$/m);
    expect(listed.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect(listedHuman.stdout).toMatch(/^ID\s+NAME\s+TYPE\s+PUBLIC\s+VERIFIED\s+WEBHOOK$/m);
    expect(listedHuman.stdout).toContain(created.id);

    const updated = await t.json([
      'plugins',
      'update',
      created.id,
      '--webhook-url',
      hook.webhookUrl,
      '--private',
    ]);
    expect(updated).toMatchObject({
      webhookUrl: hook.webhookUrl,
      isPublic: false,
      webhookUrlIsVerified: false,
    });
    const updatedHuman = await t.cli([
      'plugins',
      'update',
      created.id,
      '--description',
      'still greets',
      '--webhook-url',
      hook.webhookUrl,
    ]);
    expect(updatedHuman.stderr).toContain(`plugsmith plugins verify ${created.id}`);

    const secret = await t.cli(['plugins', 'secret', created.id]);
    expect(secret.stdout).toMatch(/^whsec_\S+\n$/);
    expect(await t.json(['plugins', 'secret', created.id])).toEqual({
      id: created.id,
      webhookSecret: secret.stdout.trim(),
    });
    // A list, what a CI job pipes to find an id, carries no plugin's secret; the one record asked for does.
    const all = (await t.json(['plugins', 'list', '--org', ORG, '--all'])) as Array<
      Record<string, unknown>
    >;
    expect(all.map((p) => p.id)).toContain(created.id);
    expect(all.filter((p) => 'webhookSecret' in p)).toEqual([]);
    const allText = await t.cli(['plugins', 'list', '--org', ORG, '--all', '--json']);
    expect(allText.stdout).not.toContain('whsec_');
    expect((await t.json(['plugins', 'get', created.id])).webhookSecret).toBe(secret.stdout.trim());

    const refused = await t.cli(['plugins', 'delete', created.id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await t.json(['plugins', 'delete', created.id, '--yes'])).toMatchObject({
      id: created.id,
      deleted: true,
    });
    const gone = await t.cli(['plugins', 'get', created.id]);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/not found.*HTTP 404 NOT_FOUND/);
  });

  test('verify: exit 0 when the webhook answers the challenge, 1 with the reason when it does not', async () => {
    const good = await t.api.plugins.createInOrg(ORG, {
      name: 'Verified',
      type: 'APP',
      webhookUrl: hook.webhookUrl,
    });
    const bad = await t.api.plugins.createInOrg(ORG, {
      name: 'Refused',
      type: 'APP',
      webhookUrl: refusing.webhookUrl,
    });
    const [ok, okJson, notOk] = await Promise.all([
      t.cli(['plugins', 'verify', good.id]),
      t.cli(['plugins', 'verify', good.id, '--json']),
      t.cli(['plugins', 'verify', bad.id]),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('verified');
    expect(JSON.parse(okJson.stdout)).toMatchObject({ verified: true });
    expect(notOk.code).toBe(1);
    expect(notOk.stdout).toContain('not verified');
    expect(notOk.stderr).toContain(`the webhook of plugin ${bad.id} is not verified`);
    expect((await t.api.plugins.get(good.id)).webhookUrlIsVerified).toBe(true);
  });

  test('marketplace lists public plugins without a token; the secret is refused to a VIEWER (exit 3)', async () => {
    const pub = await t.api.plugins.createInOrg(ORG, {
      name: 'Market thing',
      type: 'APP',
      isPublic: true,
      tags: ['market'],
    });
    const market = await t.json(['plugins', 'marketplace', '--filter', 'tags=market'], {
      PLUGSMITH_TOKEN: '',
    });
    expect(market.map((p: { id: string }) => p.id)).toContain(pub.id);
    expect(market.every((p: { isPublic: boolean }) => p.isPublic)).toBe(true);
    const human = await t.cli(['plugins', 'marketplace', '--search', 'Market thing'], {
      PLUGSMITH_TOKEN: '',
    });
    expect(human.stdout).toContain('Market thing');

    const viewerSecret = await t.cli(['plugins', 'secret', pub.id], {
      PLUGSMITH_TOKEN: VIEWER_TOKEN,
    });
    expect(viewerSecret.code).toBe(3);
    expect(viewerSecret.stderr).toContain('MEMBERs and OWNERs');
    const viewerCreate = await t.cli(
      ['plugins', 'create', '--org', ORG, '--name', 'nope', '--type', 'APP'],
      { PLUGSMITH_TOKEN: VIEWER_TOKEN },
    );
    expect(viewerCreate.code).toBe(3);
  });

  test('usage errors: nothing to update, --public with --private, a bad --type, no --name without a terminal', async () => {
    const [nothing, both, badType, noName] = await Promise.all([
      t.cli(['plugins', 'update', 'plg_x']),
      t.cli(['plugins', 'update', 'plg_x', '--public', '--private']),
      t.cli(['plugins', 'create', '--org', ORG, '--name', 'x', '--type', 'WIDGET']),
      t.cli(['plugins', 'create', '--org', ORG, '--type', 'APP']),
    ]);
    expect([nothing.code, both.code, badType.code, noName.code]).toEqual([2, 2, 2, 2]);
    expect(nothing.stderr).toContain('nothing to update');
    expect(badType.stderr).toContain('WIDGET');
    expect(noName.stderr).toContain('pass --name');
    // Event kinds and scopes: checked before anything is sent (2, with the closest), in any case.
    const create = (...flags: string[]) => ['plugins', 'create', '--org', ORG, ...flags];
    const typo = await t.cli(
      create('--name', 'typo', '--type', 'EVENT_HANDLER', '--events', 'agent_mesage_received'),
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown event kind "agent_mesage_received"');
    expect(typo.stderr).toContain('(Did you mean AGENT_MESSAGE_RECEIVED?)');
    const badScope = await t.cli(
      create('--name', 'typo', '--type', 'APP', '--scopes', 'AGENT_MESSAGE_WRIT'),
    );
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('(Did you mean AGENT_MESSAGE_WRITE?)');
    const lower = await t.json(
      create(
        '--name',
        'lower',
        '--type',
        'EVENT_HANDLER',
        '--events',
        'agent_message_received',
        '--scopes',
        'agent_message_write',
      ),
    );
    expect(lower).toMatchObject({
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    });
    // Both missing: both named in one run, not one per run.
    const neither = await t.cli(['plugins', 'create', '--org', ORG]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('missing --name and --type: pass them');
  });
});
