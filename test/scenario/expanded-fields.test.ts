import { expect, test } from 'vitest';
import { runScenario } from '../../src/emulator-entry.js';
import { emulatorAndClient, servePlugin } from '../kit/plugin-server.js';

// A step's fields keep the types its schema gives them once references are expanded: a whole-string
// reference to a number, where text goes, is its digits (as it always was); one to an object fails the
// step, naming the field, before anything is sent with it.

test('a number where text goes is its digits; an object there fails the step, naming the field', async () => {
  const { emu, client } = await emulatorAndClient();
  const pluginId = await servePlugin(
    emu,
    client,
    {
      name: 'library',
      description: 'keeps files',
      type: 'DATA_PROVIDER',
      events: ['REPOSITORY_FILE_ADDED'],
      scopes: ['REPOSITORY_FILES_READ'],
    },
    {},
  );
  const result = await runScenario(
    {
      name: 'expanded fields',
      steps: [
        { id: 'list', request: { method: 'GET', path: '/api/repositories/repo_docs/files' } },
        {
          id: 'named',
          addFile: { repository: 'repo_docs', name: '${list.meta.pagination.total}', content: 'x' },
        },
        { removeFile: { repository: 'repo_docs', file: '${list.data}' } },
      ],
    },
    { emulator: emu, pluginId },
  );
  const [listed, named, removed] = result.steps;
  expect(listed.ok).toBe(true);
  expect(named.ok, named.error).toBe(true);
  expect(named.result.name).toMatch(/^\d+$/);
  expect(removed.ok).toBe(false);
  expect(removed.error).toBe(
    'removeFile.file does not fit once its references are expanded: expected string',
  );
});
