import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { spawnCli } from '../kit/cli-process.js';
import { tempDir, until } from '../kit/index.js';
import { groupMembers } from '../kit/processes.js';

// Issue 41 item 10: dev (and `scenario run --start`, which runs the plugin through the same PluginProcess) killed with
// SIGKILL left the plugin running with ppid 1, holding its port. A guard in a session of its own ends the plugin's group.

test('SIGKILL to dev: the plugin it started (and what the plugin started) does not outlive it', async () => {
  const dir = await tempDir('plugsmith-plugin-guard-');
  const groupFile = join(dir, 'group');
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'Guarded plugin',
        type: 'EVENT_HANDLER',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own ${PORT} variable
        webhookUrl: 'http://127.0.0.1:${PORT:-3999}/webhook',
        events: ['AGENT_MESSAGE_RECEIVED'],
      },
    }),
  );
  const dev = spawnCli(
    [
      'dev',
      '--emulator-port',
      '0',
      '--messaging-port',
      '0',
      '--no-installs',
      '--cmd',
      `echo $$ > ${groupFile}; sleep 100 & sleep 100`,
    ],
    { cwd: dir, env: { PLUGSMITH_CONFIG_DIR: join(dir, 'config') } },
  );
  const group = await until('the plugin to start', () => {
    if (!existsSync(groupFile)) return undefined;
    const text = readFileSync(groupFile, 'utf8').trim();
    return text ? Number(text) : undefined;
  });
  await until('its children', () => (groupMembers(group).length >= 3 ? true : undefined));
  dev.child.kill('SIGKILL');
  await until('the plugin group to end', () =>
    groupMembers(group).length === 0 ? true : undefined,
  );
  expect(groupMembers(group)).toEqual([]);
});
