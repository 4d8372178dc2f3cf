import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { jsonFile, ORG, useCliEnv, VIEWER_TOKEN } from '../kit/cli-env.js';
import { receiver, type Receiver } from '../kit/index.js';

const t = useCliEnv();
let hook: Receiver;
beforeAll(async () => {
  hook = await receiver();
});

describe.concurrent('plugsmith repos, providers, conversations and messages', {
  timeout: 120_000,
}, () => {
  test('repos create, get, list (human and --json); a VIEWER cannot create (3)', async () => {
    const created = await t.json([
      'repos',
      'create',
      '--org',
      ORG,
      '--name',
      'Handbook',
      '--description',
      'How we work',
    ]);
    expect(created).toMatchObject({ name: 'Handbook', description: 'How we work', orgId: ORG });
    const createdHuman = await t.cli(['repos', 'create', '--org', ORG, '--name', 'Zines']);
    expect(createdHuman.stdout).toMatch(/^id\s+repo_/m);
    const [got, human, list, table, viewer] = await Promise.all([
      t.json(['repos', 'get', created.id]),
      t.cli(['repos', 'get', created.id]),
      t.json(['repos', 'list', '--org', ORG, '--search', 'handbook']),
      t.cli(['repos', 'list', '--org', ORG, '--sort', 'name', '--order', 'asc']),
      t.cli(['repos', 'create', '--org', ORG, '--name', 'nope'], { PLUGSMITH_TOKEN: VIEWER_TOKEN }),
    ]);
    expect(got.id).toBe(created.id);
    expect(human.stdout).toMatch(/^name\s+Handbook$/m);
    expect(list.map((r: { id: string }) => r.id)).toEqual([created.id]);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+ORG\s+DESCRIPTION$/m);
    expect(table.stdout.indexOf('Docs')).toBeLessThan(table.stdout.indexOf('Handbook'));
    expect(viewer.code).toBe(3);
    expect(viewer.stderr).toContain('HTTP 403');
  });

  test('repos files add, list, remove with an uploaded file', async () => {
    const repo = await t.api.repositories.createInOrg(ORG, { name: 'With files' });
    const path = join(t.dir, 'guide.md');
    await writeFile(path, '# Guide\n');
    const urls = await t.api.uploads.generateUploadUrls({
      files: [{ fileName: 'guide.md', fileSize: 8 }],
      parentType: 'ORG',
      parentId: ORG,
    });
    await t.api.uploads.uploadFile(urls.files[0].signedUrl, path);
    const uploaded = {
      fileId: (
        await t.api.uploads.setStatus({ fileId: urls.files[0].fileRecord.id, status: 'UPLOADED' })
      ).id,
    };
    const added = await t.cli(['repos', 'files', 'add', repo.id, uploaded.fileId]);
    expect(added.code, added.stderr).toBe(0);
    const [list, table] = await Promise.all([
      t.json(['repos', 'files', 'list', repo.id]),
      t.cli(['repos', 'files', 'list', repo.id]),
    ]);
    expect(list.map((f: { id: string }) => f.id)).toEqual([uploaded.fileId]);
    expect(table.stdout).toContain('guide.md');
    const noYes = await t.cli(['repos', 'files', 'remove', repo.id, uploaded.fileId]);
    expect(noYes.code).toBe(2);
    const removed = await t.cli(['repos', 'files', 'remove', repo.id, uploaded.fileId, '--yes']);
    expect(removed.stdout).toBe(`removed file ${uploaded.fileId} from repository ${repo.id}\n`);
    expect(await t.json(['repos', 'files', 'list', repo.id])).toEqual([]);
    expect(await t.json(['repos', 'files', 'add', repo.id, uploaded.fileId])).toBeTruthy();
    expect(
      await t.json(['repos', 'files', 'remove', repo.id, uploaded.fileId, '--yes']),
    ).toBeTruthy();
    expect((await t.cli(['repos', 'files', 'list', repo.id])).stdout).toBe(
      'no files in this repository\n',
    );
  });

  test('providers add (defaults from the plugin), list, remove; an unverified plugin is refused (5)', async () => {
    const inputsSchema = await jsonFile(t.dir, 'provider-inputs.json', {
      type: 'object',
      properties: { depth: { type: 'integer' } },
    });
    const plugin = await t.json([
      'plugins',
      'create',
      '--org',
      ORG,
      '--name',
      'Indexer',
      '--type',
      'DATA_PROVIDER',
      '--webhook-url',
      hook.webhookUrl,
      '--events',
      'REPOSITORY_FILE_ADDED,REPOSITORY_FILE_REMOVED',
      '--scopes',
      'REPOSITORY_FILES_READ',
      '--inputs-schema',
      inputsSchema,
    ]);
    expect(plugin.inputsSchema).toMatchObject({ properties: { depth: { type: 'integer' } } });
    const refused = await t.cli(['providers', 'add', 'repo_docs', '--plugin', plugin.id]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('not verified');
    expect((await t.api.plugins.verifyWebhook(plugin.id)).verified).toBe(true);

    const inputs = await jsonFile(t.dir, 'inputs-value.json', { depth: 2 });
    const instance = await t.json([
      'providers',
      'add',
      'repo_docs',
      '--plugin',
      plugin.id,
      '--scopes',
      'REPOSITORY_FILES_READ',
      '--inputs',
      inputs,
      '--dispatch-mode',
      'SYNC',
    ]);
    expect(instance).toMatchObject({
      pluginId: plugin.id,
      name: 'Indexer',
      events: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputs: { depth: 2 },
      eventDispatchMode: 'SYNC',
      entityId: 'repo_docs',
    });
    const badInputs = await jsonFile(t.dir, 'inputs-bad.json', { depth: 'deep' });
    const invalid = await t.cli([
      'providers',
      'add',
      'repo_docs',
      '--plugin',
      plugin.id,
      '--name',
      'second',
      '--inputs',
      badInputs,
    ]);
    expect(invalid.code).toBe(5);
    expect(invalid.stderr).toMatch(/- inputs\.depth/);

    const [list, table] = await Promise.all([
      t.json(['providers', 'list', 'repo_docs', '--filter', `pluginId=${plugin.id}`]),
      t.cli(['providers', 'list', 'repo_docs']),
    ]);
    expect(list.map((i: { id: string }) => i.id)).toEqual([instance.id]);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+PLUGIN\s+EVENTS\s+SCOPES\s+MODE$/m);
    expect(table.stdout).toContain('REPOSITORY_FILE_ADDED,REPOSITORY_FILE_REMOVED');
    const second = await t.cli([
      'providers',
      'add',
      'repo_docs',
      '--plugin',
      plugin.id,
      '--name',
      'second',
      '--events',
      'REPOSITORY_FILE_ADDED',
    ]);
    expect(second.stdout).toMatch(/^name\s+second$/m);
    const secondId = /^id\s+(\S+)$/m.exec(second.stdout)![1];
    expect((await t.cli(['providers', 'remove', 'repo_docs', secondId, '--yes'])).stdout).toBe(
      `removed data provider ${secondId}\n`,
    );
    expect(await t.json(['providers', 'remove', 'repo_docs', instance.id, '--yes'])).toMatchObject({
      id: instance.id,
    });
    expect((await t.cli(['providers', 'remove', 'repo_docs', instance.id, '--yes'])).code).toBe(4);
  });

  test('conversations create and get; messages send (argument and stdin) and list (pages, --after, --all)', async () => {
    const conversation = await t.json(['conversations', 'create', '--character', 'char_nova']);
    expect(conversation).toMatchObject({ characterId: 'char_nova' });
    const [got, gotJson, createdHuman] = await Promise.all([
      t.cli(['conversations', 'get', conversation.id]),
      t.json(['conversations', 'get', conversation.id]),
      t.cli(['conversations', 'create', '--character', 'char_nova']),
    ]);
    expect(got.stdout).toMatch(/^characterId\s+char_nova$/m);
    expect(gotJson).toMatchObject({ id: conversation.id, characterId: 'char_nova' });
    expect(createdHuman.stdout).toMatch(/^id\s+\S+$/m);

    const sent = await t.json(['messages', 'send', conversation.id, 'hello']);
    expect(sent).toMatchObject({
      conversationId: conversation.id,
      sender: 'USER',
      content: 'hello',
      type: 'TEXT',
    });
    const piped = await t.cli(
      [
        'messages',
        'send',
        conversation.id,
        '-',
        '--attachment',
        'IMAGE_URL=https://example.com/cat.png',
      ],
      {},
      'from stdin\n',
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^content\s+from stdin$/m);

    // The scripted character answers each message; wait until both replies are complete.
    for (let i = 0; i < 100; i++) {
      const { data } = await t.api.messaging.messages.list(conversation.id, { limit: 100 });
      if (data.filter((m) => m.sender === 'CHARACTER' && !m.isStreaming).length >= 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const all: Array<{ id: string; sender: string; content: string }> = await t.json([
      'messages',
      'list',
      conversation.id,
      '--all',
      '--limit',
      '1',
    ]);
    expect(all.map((m) => m.sender)).toEqual(['USER', 'CHARACTER', 'USER', 'CHARACTER']);
    expect(all[1].content).toBe('Hi there!');
    const [first, after, table] = await Promise.all([
      t.cli(['messages', 'list', conversation.id, '--limit', '1']),
      t.json(['messages', 'list', conversation.id, '--after', all[1].id]),
      t.cli(['messages', 'list', conversation.id]),
    ]);
    expect(first.stderr).toContain(`more messages: --after ${all[0].id}`);
    expect(after.map((m: { id: string }) => m.id)).toEqual([all[2].id, all[3].id]);
    expect(table.stdout).toMatch(/^ID\s+SENDER\s+TYPE\s+CONTENT\s+SENT$/m);
    expect(table.stdout).toContain('Hi there!');
  });

  test('messaging needs the API key (3 without or with a wrong one) and an existing conversation (4)', async () => {
    const [none, wrong, missing, unknownCharacter] = await Promise.all([
      t.cli(['conversations', 'create', '--character', 'char_nova'], { PLUGSMITH_API_KEY: '' }),
      t.cli(['conversations', 'get', 'conv_x'], { PLUGSMITH_API_KEY: 'psk_wrong' }),
      t.cli(['messages', 'list', 'conv_missing']),
      t.cli(['conversations', 'create', '--character', 'char_nobody']),
    ]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('PLUGSMITH_API_KEY');
    expect(wrong.code).toBe(3);
    expect(missing.code).toBe(4);
    expect(unknownCharacter.code).not.toBe(0);
  });
});
