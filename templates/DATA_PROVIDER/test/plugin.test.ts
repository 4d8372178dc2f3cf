import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from 'plugsmith/emulator';
import { FAULTS, startHarness, type Harness } from './harness.js';

// The emulator's default workspace has this repository in the default user's org.
const REPOSITORY = 'repo_docs';

/** Uploads a text file and adds it to the repository, as a user of the org would. */
async function addFile(h: Harness, fileName: string, text: string): Promise<string> {
  const body = Buffer.from(text);
  const { files } = await h.client.uploads.generateUploadUrls({
    files: [{ fileName, contentType: 'text/plain', fileSize: body.length }],
  });
  const [{ signedUrl, fileRecord }] = files;
  await h.client.uploads.uploadFile(signedUrl, Readable.from([body]), {
    size: body.length,
    contentType: 'text/plain',
  });
  await h.client.uploads.setStatus({ fileId: fileRecord.id, status: 'UPLOADED' });
  await h.client.repositories.files.add(REPOSITORY, fileRecord.id);
  return fileRecord.id;
}

/** The plugin's tests, against an emulator started with `options`. */
function pluginTests(title: string, options: EmulatorOptions) {
  describe(title, () => {
    let h: Harness;
    let instanceId = '';

    beforeAll(async () => {
      h = await startHarness(options);
    });

    afterAll(async () => {
      await h?.close();
    });

    it('keeps its installation token in an owner-only file', async () => {
      const { plugin: manifest } = h.manifest;
      const instance = await h.client.dataProviders.install(REPOSITORY, {
        name: 'docs provider',
        pluginId: h.pluginId,
        events: manifest.events,
        scopes: manifest.scopes,
      });
      instanceId = instance.id;
      await h.emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: h.pluginId });

      const installation = await h.plugin.tokens.get(instanceId);
      expect(installation).toMatchObject({
        instanceId,
        entityType: 'REPOSITORY',
        entityId: REPOSITORY,
      });
      expect(installation?.accessToken).toBeTruthy();
      expect((await stat(h.plugin.tokens.path)).mode & 0o777).toBe(0o600);
    });

    it('reads a file added to its repository with its token', async () => {
      const fileId = await addFile(h, 'welcome.txt', 'Hello from the repository.');
      const delivery = await h.emu.waitForDelivery({
        type: 'REPOSITORY_FILE_ADDED',
        pluginId: h.pluginId,
      });
      expect(delivery.pluginInstanceId).toBe(instanceId);

      expect(h.plugin.documents.get(fileId)).toMatchObject({
        fileName: 'welcome.txt',
        repositoryId: REPOSITORY,
        text: 'Hello from the repository.',
      });
    });

    it('forgets a file removed from its repository', async () => {
      const [fileId] = h.plugin.documents.keys();
      await h.client.repositories.files.remove(REPOSITORY, fileId);
      await h.emu.waitForDelivery({ type: 'REPOSITORY_FILE_REMOVED', pluginId: h.pluginId });
      expect(h.plugin.documents.has(fileId)).toBe(false);
    });
  });
}

pluginTests('{{name}}', {});
// The same tests under the faults the platform produces (duplicates, delays, reordering, retries).
pluginTests('{{name}} under faults', FAULTS);
