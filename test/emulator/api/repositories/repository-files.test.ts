import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../../emulator/index.js';
import { verifyWebhook } from '../../../../src/shared/webhooks/index.js';
import { WebhookServer } from '../../../kit/webhook-server.js';
import { api, emulator } from '../../../kit/index.js';
import { emulatorInternals } from '../../../../emulator/internals.js';

type Json = { ok: boolean; data?: any; error?: { message: string; error: string } };

let emu: Emulator;
let hook: WebhookServer;
let instanceToken: string;
let instanceId: string;
let secret: string;
let uploadedFile: string;
let outsideFile: string;

const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
  api(emu, { token: token ?? null }).call(
    method,
    path,
    body === undefined ? {} : { body },
  ) as Promise<{ status: number; body: Json }>;

async function uploadFile(name: string): Promise<string> {
  const gen = await call('POST', '/api/generate-upload-url', emu.token!, {
    files: [{ fileName: name }],
    parentId: 'org_dev',
    parentType: 'ORG',
  });
  const f = gen.body.data.files[0];
  const put = await request(f.signedUrl, { method: 'PUT', body: `content of ${name}` });
  await put.body.dump();
  expect(
    (
      await call('PATCH', '/api/status', emu.token!, {
        fileId: f.fileRecord.id,
        status: 'UPLOADED',
      })
    ).status,
  ).toBe(200);
  return f.fileRecord.id;
}

beforeAll(async () => {
  emu = await emulator();
  hook = await WebhookServer.start();
  const plugin = await call('POST', '/api/plugins', emu.token!, {
    orgId: 'org_dev',
    name: 'Docs indexer',
    type: 'DATA_PROVIDER',
    events: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    scopes: ['REPOSITORY_FILES_READ'],
    webhookUrl: hook.url,
  });
  secret = plugin.body.data.webhookSecret;
  const pluginId = plugin.body.data.id;
  expect(
    (await call('POST', `/api/plugins/${pluginId}/verify-webhook`, emu.token!)).body.data.verified,
  ).toBe(true);
  const instance = await call('POST', '/api/repositories/repo_docs/data-providers', emu.token!, {
    name: 'docs',
    pluginId,
    events: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    scopes: ['REPOSITORY_FILES_READ'],
  });
  expect(instance.status).toBe(201);
  instanceId = instance.body.data.id;
  const [installed] = await hook.waitFor(1, 'PLUGIN_INSTALLED');
  instanceToken = (installed.event.data as { accessToken: string }).accessToken;
  uploadedFile = await uploadFile('guide.md');
  outsideFile = await uploadFile('not-in-repo.md');
});
afterAll(async () => {
  await hook.close();
});

describe('repository files', () => {
  test('adding a file emits a signed REPOSITORY_FILE_ADDED to the data provider; removing emits REPOSITORY_FILE_REMOVED', async () => {
    const added = await call('POST', '/api/repositories/repo_docs/files', emu.token!, {
      fileId: uploadedFile,
    });
    expect(added.status).toBe(201);
    const [event] = await hook.waitFor(1, 'REPOSITORY_FILE_ADDED');
    const verified = verifyWebhook(event.body, event.headers as Record<string, string>, secret);
    expect(verified).toMatchObject({
      type: 'REPOSITORY_FILE_ADDED',
      pluginInstanceId: instanceId,
      data: { repositoryId: 'repo_docs', file: { id: uploadedFile, fileName: 'guide.md' } },
    });
    expect(
      (
        await call('POST', '/api/repositories/repo_docs/files', emu.token!, {
          fileId: uploadedFile,
        })
      ).status,
    ).toBe(409);

    // The list says when and by whom each file was added (the emulator's extensions): a user's token here.
    const userId = [...emulatorInternals(emu).db.tokens.values()].find(
      (t) => t.kind === 'user',
    )?.userId;
    expect(userId).toBeTruthy();
    const listed = await call('GET', '/api/repositories/repo_docs/files', emu.token!);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: uploadedFile,
        addedAt: added.body.data.addedAt,
        addedBy: { kind: 'user', userId },
      }),
    ]);

    const temp = await uploadFile('temp.md');
    expect(
      (await call('POST', '/api/repositories/repo_docs/files', emu.token!, { fileId: temp }))
        .status,
    ).toBe(201);
    expect(
      (await call('DELETE', `/api/repositories/repo_docs/files/${temp}`, emu.token!)).status,
    ).toBe(200);
    const [removed] = await hook.waitFor(1, 'REPOSITORY_FILE_REMOVED');
    expect(removed.event.data).toMatchObject({ repositoryId: 'repo_docs', file: { id: temp } });
    expect(
      (await call('DELETE', `/api/repositories/repo_docs/files/${temp}`, emu.token!)).status,
    ).toBe(404);
  });

  test('a file that is not uploaded cannot be added', async () => {
    const gen = await call('POST', '/api/generate-upload-url', emu.token!, {
      files: [{ fileName: 'pending.md' }],
      parentId: 'org_dev',
      parentType: 'ORG',
    });
    const res = await call('POST', '/api/repositories/repo_docs/files', emu.token!, {
      fileId: gen.body.data.files[0].fileRecord.id,
    });
    expect(res.status).toBe(400);
  });

  // The data provider's installation token reaches its repository's files and nothing else.
  const reach: Array<[string, string, string, number | ((s: number) => boolean)]> = [
    ['lists its repository files', 'GET', '/api/repositories/repo_docs/files', 200],
    ['reads a file of its repository', 'GET', '/api/access/{file}', 200],
    ['cannot read a file outside its repository', 'GET', '/api/access/{outside}', 403],
    ['cannot list org files', 'GET', '/api?parentId=org_dev&parentType=ORG', 403],
    ['cannot add files to its repository', 'POST', '/api/repositories/repo_docs/files', 403],
    ['cannot remove files', 'DELETE', '/api/repositories/repo_docs/files/{file}', 403],
    ['cannot list another repository', 'GET', '/api/repositories/repo_other/files', 403],
    ['cannot create upload URLs', 'POST', '/api/generate-upload-url', 403],
    ['cannot change a file status', 'PATCH', '/api/status', 403],
    ['cannot read the repository record', 'GET', '/api/repositories/repo_docs', 403],
    ['cannot list plugins', 'GET', '/api/orgs/org_dev/plugins', 403],
  ];
  test.each(reach)('an instance token %s', async (_name, method, path, expected) => {
    const url = path.replace('{file}', uploadedFile).replace('{outside}', outsideFile);
    const body =
      method === 'POST' && url.endsWith('/files')
        ? { fileId: outsideFile }
        : method === 'POST'
          ? { files: [{ fileName: 'x' }], parentId: 'org_dev', parentType: 'ORG' }
          : method === 'PATCH'
            ? { fileId: uploadedFile, status: 'PROCESSING' }
            : undefined;
    const res = await call(method, url, instanceToken, body);
    expect(res.status).toBe(expected);
    if (res.status === 200 && url.startsWith('/api/access/')) {
      const content = await request(res.body.data.url);
      expect(await content.body.text()).toBe('content of guide.md');
    }
    if (res.status === 200 && url.endsWith('/files'))
      expect(res.body.data.map((f: { id: string }) => f.id)).toEqual([uploadedFile]);
  });

  test('members of other orgs and VIEWER-less callers do not see files', async () => {
    expect((await call('GET', `/api/access/${uploadedFile}`, undefined)).status).toBe(401);
    expect((await call('GET', '/api/repositories/repo_docs/files', 'pst_unknown')).status).toBe(
      401,
    );
  });
});
