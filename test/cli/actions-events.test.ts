import { beforeAll, describe, expect, test } from 'vitest';
import { jsonFile, ORG, useCliEnv } from '../kit/cli-env.js';

const t = useCliEnv();
let pluginId: string;
let files: { args: string; payload: string; broken: string; notSchema: string; array: string };
beforeAll(async () => {
  pluginId = (await t.api.plugins.createInOrg(ORG, { name: 'Defs', type: 'APP' })).id;
  files = {
    args: await jsonFile(t.dir, 'args.json', {
      type: 'object',
      properties: { to: { type: 'string' } },
      required: ['to'],
    }),
    payload: await jsonFile(t.dir, 'payload.json', {
      type: 'object',
      properties: { amount: { type: 'number' } },
    }),
    broken: await jsonFile(t.dir, 'broken.json', '{ "type": '),
    notSchema: await jsonFile(t.dir, 'not-schema.json', { type: 'nope' }),
    array: await jsonFile(t.dir, 'array.json', [1, 2]),
  };
});

describe.concurrent('plugsmith actions and events', { timeout: 120_000 }, () => {
  test('-q prints the name, which get, update and delete take: a script can feed one to the other; a duplicate names update', async () => {
    for (const noun of ['actions', 'events']) {
      const plugin = (await t.api.plugins.createInOrg(ORG, { name: `Quiet ${noun}`, type: 'APP' }))
        .id;
      const created = await t.cli([noun, 'create', plugin, '--name', `${noun}_q`, '-q']);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toBe(`${noun}_q\n`);
      const listed = await t.cli([noun, 'list', plugin, '-q']);
      expect(listed.stdout).toBe(`${noun}_q\n`);
      const name = listed.stdout.trim();
      // Made again: a conflict (6) that names the CLI's way to change it, not the API's PUT.
      const again = await t.cli([noun, 'create', plugin, '--name', name]);
      expect(again.code).toBe(6);
      expect(again.stderr).toContain(
        `change it with \`plugsmith ${noun} update ${plugin} ${name} …\``,
      );
      expect((await t.cli([noun, 'get', plugin, name, '-q'])).stdout).toBe(`${name}\n`);
      const deleted = await t.cli([noun, 'delete', plugin, name, '--yes']);
      expect(deleted.code, deleted.stderr).toBe(0);
    }
  });

  test('actions: create with schema files, get, list, update, delete (human and --json)', async () => {
    const created = await t.cli([
      'actions',
      'create',
      pluginId,
      '--name',
      'send',
      '--title',
      'Send',
      '--args-schema',
      files.args,
      '--return-schema',
      files.payload,
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^name\s+send$/m);
    expect(created.stdout).toContain('"required":["to"]');

    const [got, list, listHuman] = await Promise.all([
      t.json(['actions', 'get', pluginId, 'send']),
      t.json(['actions', 'list', pluginId]),
      t.cli(['actions', 'list', pluginId]),
    ]);
    expect(got).toMatchObject({
      name: 'send',
      title: 'Send',
      argsSchema: { required: ['to'] },
      returnSchema: { properties: { amount: { type: 'number' } } },
    });
    expect(list.map((a: { name: string }) => a.name)).toEqual(['send']); // before 'receive' exists
    expect(listHuman.stdout).toMatch(/^NAME\s+TITLE\s+DESCRIPTION\nsend\s+Send/m);

    expect(
      await t.json(['actions', 'update', pluginId, 'send', '--description', 'Sends it']),
    ).toMatchObject({ name: 'send', description: 'Sends it' });
    const [again, gotHuman, updatedHuman] = await Promise.all([
      t.json(['actions', 'create', pluginId, '--name', 'receive']),
      t.cli(['actions', 'get', pluginId, 'send']),
      t.cli(['actions', 'update', pluginId, 'send', '--title', 'Send it']),
    ]);
    expect(again).toMatchObject({ name: 'receive' });
    expect(gotHuman.stdout).toMatch(/^description\s+Sends it$/m);
    expect(updatedHuman.stdout).toMatch(/^title\s+Send it$/m);
    const deleted = await t.cli(['actions', 'delete', pluginId, 'send', '--yes']);
    expect(deleted.stdout).toBe('deleted action send\n');
    expect((await t.cli(['actions', 'get', pluginId, 'send'])).code).toBe(4);
  });

  test('events: create with a payload schema, get, list, update, delete', async () => {
    const created = await t.json([
      'events',
      'create',
      pluginId,
      '--name',
      'invoice.paid',
      '--title',
      'Paid',
      '--payload-schema',
      files.payload,
    ]);
    expect(created).toMatchObject({ name: 'invoice.paid', payloadSchema: { type: 'object' } });
    const human = await t.cli(['events', 'get', pluginId, 'invoice.paid']);
    expect(human.stdout).toMatch(/^payloadSchema\s+\{"type":"object"/m);
    expect(
      (await t.json(['events', 'list', pluginId])).map((e: { name: string }) => e.name),
    ).toEqual(['invoice.paid']);
    expect(
      await t.json(['events', 'update', pluginId, 'invoice.paid', '--title', 'Invoice paid']),
    ).toMatchObject({ title: 'Invoice paid' });
    const createdHuman = await t.cli([
      'events',
      'create',
      pluginId,
      '--name',
      'invoice.sent',
      '--description',
      'Sent',
    ]);
    expect(createdHuman.stdout).toMatch(/^name\s+invoice\.sent$/m);
    const listHuman = await t.cli(['events', 'list', pluginId, '--sort', 'name', '--order', 'asc']);
    expect(listHuman.stdout).toMatch(
      /^NAME\s+TITLE\s+DESCRIPTION\ninvoice\.paid\s+Invoice paid\s*\ninvoice\.sent\s+Sent$/m,
    );
    const updatedHuman = await t.cli([
      'events',
      'update',
      pluginId,
      'invoice.sent',
      '--name',
      'invoice.mailed',
    ]);
    expect(updatedHuman.stdout).toMatch(/^name\s+invoice\.mailed$/m);
    expect(await t.json(['events', 'delete', pluginId, 'invoice.paid', '--yes'])).toBeTruthy();
    expect((await t.cli(['events', 'delete', pluginId, 'invoice.mailed', '--yes'])).stdout).toBe(
      'deleted external event invoice.mailed\n',
    );
    expect((await t.json(['events', 'list', pluginId])).length).toBe(0);
  });

  test('schema file errors name the flag and the file: missing 2, not JSON 5, not an object 5, refused by the platform 5', async () => {
    const [missing, broken, array, refused] = await Promise.all([
      t.cli(['actions', 'create', pluginId, '--name', 'a1', '--args-schema', `${t.dir}/nope.json`]),
      t.cli(['actions', 'create', pluginId, '--name', 'a2', '--return-schema', files.broken]),
      t.cli(['events', 'create', pluginId, '--name', 'e1', '--payload-schema', files.array]),
      t.cli(['events', 'create', pluginId, '--name', 'e2', '--payload-schema', files.notSchema]),
    ]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`cannot read --args-schema ${t.dir}/nope.json: no such file`);
    expect(broken.code).toBe(5);
    // By line and column, as the manifest and scenario files are told (Node's own message gives a position only).
    expect(broken.stderr).toContain(
      `--return-schema ${files.broken} is not valid JSON: line 1, column 11: unexpected end of the file`,
    );
    expect(array.code).toBe(5);
    expect(array.stderr).toContain('must hold a JSON object');
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`${files.notSchema} from --payload-schema`);
    expect(refused.stderr).toContain('HTTP 400 VALIDATION_ERROR');
    expect(refused.stderr).toMatch(/\n {2}- payloadSchema/);
  });

  test('a duplicate name is a conflict (6); an unknown plugin is not found (4); delete without --yes is usage (2)', async () => {
    const own = (await t.api.plugins.createInOrg(ORG, { name: 'Conflicts', type: 'APP' })).id;
    await t.api.actions.create(own, { name: 'twice' });
    const [again, unknown, noYes, nothing] = await Promise.all([
      t.cli(['actions', 'create', own, '--name', 'twice']),
      t.cli(['actions', 'list', 'plg_unknown']),
      t.cli(['events', 'delete', pluginId, 'whatever']),
      t.cli(['actions', 'update', own, 'twice']),
    ]);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('HTTP 409 CONFLICT');
    expect(unknown.code).toBe(4);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('pass --yes');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('--args-schema');
  });
});
