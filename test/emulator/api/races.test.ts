import { call, emulator } from '../../kit/index.js';
import { request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { answerProperly, WebhookServer, verifiedDataProvider } from '../../kit/webhook-server.js';
import { deletePlugin } from '../../../emulator/api/plugins/service.js';
import { installInstance } from '../../../emulator/api/instances/service.js';
import { HttpError } from '../../../emulator/errors.js';
import type { InstanceRecord } from '../../../emulator/model.js';
import { emulatorInternals } from '../../../emulator/internals.js';

/** A gate a test opens by hand: `reached` resolves when something waits on it. */
function gate() {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const wait = () => {
    reach();
    return opened;
  };
  return { open, reached, wait };
}

let emu: Emulator | undefined;
let hook: WebhookServer | undefined;
afterEach(async () => {
  await hook?.close();
  emu = hook = undefined;
});

async function uploadedFile(emu: Emulator, name: string): Promise<string> {
  const gen = await call(emu.url, 'POST', '/api/generate-upload-url', {
    token: emu.token!,
    body: { files: [{ fileName: name }], parentId: 'org_dev', parentType: 'ORG' },
  });
  expect(gen.status).toBe(201);
  const put = await request(gen.body.data.files[0].signedUrl, {
    method: 'PUT',
    body: `content of ${name}`,
  });
  await put.body.dump();
  return gen.body.data.files[0].fileRecord.id;
}

describe('races between changes', () => {
  test('an install that lands while its plugin is being deleted leaves no live instance and no live token', async () => {
    // The delete is held at a known point: the PLUGIN_UNINSTALLED of a SYNC instance waits for its first attempt.
    const held = gate();
    hook = await WebhookServer.start(async (event, received) => {
      if (event.type === 'PLUGIN_UNINSTALLED') await held.wait();
      return answerProperly(event, received);
    });
    emu = await emulator();
    const pluginId = await verifiedDataProvider(emu, hook);
    const first = await call(emu.url, 'POST', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
      body: {
        name: 'first',
        pluginId,
        events: [],
        scopes: ['REPOSITORY_FILES_READ'],
        eventDispatchMode: 'SYNC',
      },
    });
    expect(first.status).toBe(201);
    const fileId = await uploadedFile(emu, 'guide.md');
    expect(
      (
        await call(emu.url, 'PATCH', '/api/status', {
          token: emu.token!,
          body: { fileId, status: 'UPLOADED' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(emu.url, 'POST', '/api/repositories/repo_docs/files', {
          token: emu.token!,
          body: { fileId },
        })
      ).status,
    ).toBe(201);

    const deleting = call(emu.url, 'DELETE', `/api/plugins/${pluginId}`, { token: emu.token! });
    await held.reached;
    // The plugin still exists at this point; the old code installed against it.
    const second = await call(emu.url, 'POST', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
      body: { name: 'second', pluginId, events: [], scopes: ['REPOSITORY_FILES_READ'] },
    });
    expect(second.status).toBeLessThan(500);
    held.open();
    expect((await deleting).status).toBe(200);

    expect(emulatorInternals(emu).db.instances.where('pluginId', pluginId)).toEqual([]);
    const listed = await call(emu.url, 'GET', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
    });
    expect(listed.body.data).toEqual([]);
    // Every installation token the plugin ever received is dead.
    if (second.status === 201) await hook.waitFor(2, 'PLUGIN_INSTALLED');
    const tokens = hook
      .ofType('PLUGIN_INSTALLED')
      .map((r) => (r.event.data as { accessToken: string }).accessToken);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) {
      const read = await call(emu.url, 'GET', '/api/repositories/repo_docs/files', { token });
      expect(read.status).toBe(401);
    }
  });

  test('through the services: an install interleaved after the delete started is refused, and nothing of the plugin is left', async () => {
    hook = await WebhookServer.start();
    emu = await emulator();
    const pluginId = await verifiedDataProvider(emu, hook);
    const services = emulatorInternals(emu);
    const now = new Date().toISOString();
    const instance: InstanceRecord = {
      id: 'pin_interleaved',
      entityId: 'repo_docs',
      entityType: 'REPOSITORY',
      eventDispatchCondition: null,
      eventDispatchMode: 'ASYNC',
      events: [],
      inputs: {},
      name: 'late',
      orgId: 'org_dev',
      pluginId,
      scopes: ['REPOSITORY_FILES_READ'],
      createdAt: now,
      updatedAt: now,
    } as unknown as InstanceRecord;
    const deleting = deletePlugin(services, pluginId);
    const install = installInstance(services, instance);
    await expect(install).rejects.toBeInstanceOf(HttpError);
    await expect(install).rejects.toMatchObject({ status: 409 });
    await deleting;
    expect(services.db.plugins.has(pluginId)).toBe(false);
    expect(services.db.instances.has('pin_interleaved')).toBe(false);
    expect(
      services.db.tokens.where('instanceId', 'pin_interleaved').filter((t) => t.revokedAt === null),
    ).toEqual([]);
  });

  test('a stale UPLOADED never overwrites an acknowledged COMPLETED', async () => {
    emu = await emulator();
    const fileId = await uploadedFile(emu, 'report.pdf');
    // Hold the first UPLOADED request where it waits on storage (after it checked the move).
    const storage = emulatorInternals(emu).storage;
    const stat = storage.stat.bind(storage);
    const held = gate();
    let calls = 0;
    storage.stat = async (key) => {
      if (++calls === 1) await held.wait();
      return stat(key);
    };
    const stale = call(emu.url, 'PATCH', '/api/status', {
      token: emu.token!,
      body: { fileId, status: 'UPLOADED' },
    });
    await held.reached;
    expect(
      (
        await call(emu.url, 'PATCH', '/api/status', {
          token: emu.token!,
          body: { fileId, status: 'UPLOADED' },
        })
      ).status,
    ).toBe(200);
    const completed = await call(emu.url, 'PATCH', '/api/status', {
      token: emu.token!,
      body: { fileId, status: 'COMPLETED' },
    });
    expect(completed.status).toBe(200);
    expect(completed.body.data.status).toBe('COMPLETED');
    held.open();
    const late = await stale;
    expect(late.status).toBe(409);
    const files = await call(emu.url, 'GET', '/api/', { token: emu.token! });
    expect(files.body.data.find((f: { id: string }) => f.id === fileId).status).toBe('COMPLETED');
  });

  test('eight concurrent UPLOADED and one COMPLETED: once COMPLETED is acknowledged the file stays COMPLETED', async () => {
    emu = await emulator();
    const fileId = await uploadedFile(emu, 'many.txt');
    const uploads = Array.from({ length: 8 }, () =>
      call(emu!.url, 'PATCH', '/api/status', {
        token: emu!.token!,
        body: { fileId, status: 'UPLOADED' },
      }),
    );
    let completed = await call(emu.url, 'PATCH', '/api/status', {
      token: emu.token!,
      body: { fileId, status: 'COMPLETED' },
    });
    // COMPLETED needs an UPLOADED first: retry until one landed.
    while (completed.status === 409)
      completed = await call(emu.url, 'PATCH', '/api/status', {
        token: emu.token!,
        body: { fileId, status: 'COMPLETED' },
      });
    expect(completed.status).toBe(200);
    const results = await Promise.all(uploads);
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(emulatorInternals(emu).db.files.get(fileId)!.status).toBe('COMPLETED');
  });
});
