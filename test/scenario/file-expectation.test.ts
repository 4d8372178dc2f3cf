import { describe, expect, test } from 'vitest';
import { runScenario } from '../../src/emulator-entry.js';
import type { PlatformClient } from '../../src/client/index.js';
import { uploadRepositoryFile } from '../../src/client/repository-file.js';
import { emulatorAndClient, servePlugin, type TestPlugin } from '../kit/plugin-server.js';

// The scenario `file` expectation against a real emulator and a real DATA_PROVIDER plugin on a
// port: when a file is added to its repository, the plugin writes a summary of it there. It tries
// its installation access token first (the platform gives installation tokens no scope that adds
// files: a 403), then writes with the user token it was given. The expectation passes for the
// plugin's file, and fails, naming who added it, for a file the scenario's own addFile step added.

/** Uploads `name` and adds it to the repository, as a user does (the plugin's way to write a file). */
async function writeFile(client: PlatformClient, repositoryId: string, name: string) {
  await uploadRepositoryFile(client, {
    repositoryId,
    orgId: 'org_dev',
    fileName: name,
    contentType: 'text/markdown',
    bytes: Buffer.from(`summary of ${name}`),
  });
}

async function setUp() {
  const { emu, client } = await emulatorAndClient();
  const installationTokens = new Map<string, string>();
  /** The status the platform gave the plugin's attempts to add a file with its installation token. */
  const installationAttempts: number[] = [];
  const plugin: TestPlugin = {
    name: 'summarizer',
    description: 'writes a summary of each file added to its repository',
    type: 'DATA_PROVIDER',
    events: ['REPOSITORY_FILE_ADDED'],
    scopes: ['REPOSITORY_FILES_READ'],
  };
  const pluginId = await servePlugin(emu, client, plugin, {
    PLUGIN_INSTALLED: (event) => {
      installationTokens.set(event.data.instance.id, event.data.accessToken);
    },
    REPOSITORY_FILE_ADDED: async (event) => {
      const { repositoryId, file } = event.data;
      if (file.fileName.endsWith('.summary.md')) return;
      const summary = `${file.fileName.replace(/\.md$/, '')}.summary.md`;
      const tried = await fetch(`${emu.url}/api/repositories/${repositoryId}/files`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${installationTokens.get(event.pluginInstanceId)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ fileId: file.id }),
      });
      installationAttempts.push(tried.status);
      await writeFile(client, repositoryId, summary);
    },
  });
  return { emu, client, pluginId, installationAttempts };
}

describe('scenario: the file expectation', () => {
  test("passes for the file the plugin wrote, and the repository's list names who added it", async () => {
    const { emu, client, pluginId, installationAttempts } = await setUp();
    const result = await runScenario(
      {
        name: 'a summary is written',
        steps: [
          { install: { on: 'repository', id: 'repo_docs' } },
          {
            addFile: { repository: 'repo_docs', name: 'guide.md', content: '# Guide' },
            expect: [{ file: { repository: 'repo_docs', written: 'guide.summary.md' } }],
          },
        ],
      },
      { emulator: emu, pluginId },
    );
    expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
    // The installation token could not add a file: the plugin wrote with a user token.
    expect(installationAttempts).toEqual([403]);
    const files = (await client.repositories.files.list('repo_docs', { limit: 100 })).data;
    const summary = files.find((f) => f.fileName === 'guide.summary.md');
    expect(summary?.addedBy).toEqual({ kind: 'user', userId: expect.any(String) });
  });

  test("fails for a file the scenario's own addFile step added, naming who added it", async () => {
    const { emu, pluginId } = await setUp();
    const result = await runScenario(
      {
        name: 'the scenario writes the file itself',
        steps: [
          { install: { on: 'repository', id: 'repo_docs' } },
          {
            addFile: { repository: 'repo_docs', name: 'notes.md', content: 'notes' },
            expect: [{ file: { repository: 'repo_docs', written: 'notes.md', withinMs: 300 } }],
          },
        ],
      },
      { emulator: emu, pluginId },
    );
    expect(result.ok).toBe(false);
    const failure = result.steps[1].failures[0];
    expect(failure.expected).toBe(`notes.md written to repo_docs by the plugin (${pluginId})`);
    expect(failure.observed).toMatch(
      /^notes\.md \(file_[^)]+\) added \S+ by this scenario's addFile step \(user \S+\), not the plugin$/,
    );
  });
});
