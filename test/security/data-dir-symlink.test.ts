import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { runCli, spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';

// startEmulator rather than the kit's emulator(): this file tests the data dirs a start refuses.

// ".plugsmith/emulator symlinks are followed" (issue 36): a cloned project whose
// .plugsmith/emulator linked to a folder of the user's made `plugsmith emulator start` chmod that
// folder 0700 and every file in it 0600 (run.sh 755 -> 600, .bashrc 644 -> 600), then write the
// store into it. Now the default data dir is never reached through a link (the CLI refuses, naming
// it and the fix), a link inside a data dir is refused rather than followed, and a folder given on
// the command line with --data-dir is used as given.

/** A folder of the user's: a script, a profile; its modes and names, to compare after. */
async function usersFolder(): Promise<{ dir: string; look: () => Promise<string[]> }> {
  const dir = await tempDir('plugsmith-users-');
  await writeFile(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(dir, 'run.sh'), 0o755);
  await writeFile(join(dir, '.bashrc'), 'export PS1=x\n');
  await chmod(join(dir, '.bashrc'), 0o644);
  await chmod(dir, 0o755);
  const look = async () => {
    const entries = [`. ${((await stat(dir)).mode & 0o777).toString(8)}`];
    for (const name of (await readdir(dir)).sort())
      entries.push(`${name} ${((await stat(join(dir, name))).mode & 0o777).toString(8)}`);
    return entries;
  };
  return { dir, look };
}

const START = ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--json'];

test('emulator start refuses a project whose .plugsmith/emulator is a link, naming it and the fix; the linked folder is untouched', async () => {
  const users = await usersFolder();
  const before = await users.look();
  const project = await tempDir('plugsmith-cloned-');
  await mkdir(join(project, '.plugsmith'));
  await symlink(users.dir, join(project, '.plugsmith', 'emulator'));

  const result = await runCli(START, {
    cwd: project,
    env: { PLUGSMITH_CONFIG_DIR: await tempConfigDir() },
  });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(`.plugsmith/emulator is a symbolic link (to ${users.dir})`);
  expect(result.stderr).toContain('--data-dir <dir>');
  expect(result.stdout).toBe('');
  expect(await users.look()).toEqual(before);
});

test('emulator start refuses a project whose .plugsmith is a link (the store would be made inside the linked folder)', async () => {
  const users = await usersFolder();
  const before = await users.look();
  const project = await tempDir('plugsmith-cloned-');
  await symlink(users.dir, join(project, '.plugsmith'));

  const result = await runCli(START, {
    cwd: project,
    env: { PLUGSMITH_CONFIG_DIR: await tempConfigDir() },
  });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(`.plugsmith is a symbolic link (to ${users.dir})`);
  expect(await users.look()).toEqual(before);
});

test('dev refuses a project whose .plugsmith/emulator is a link', async () => {
  const users = await usersFolder();
  const before = await users.look();
  const project = await tempDir('plugsmith-cloned-');
  await writeFile(
    join(project, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'Cloned plugin',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: ['AGENT_MESSAGE_WRITE'],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
        webhookUrl: 'http://127.0.0.1:${PORT:-3000}/webhook',
      },
    }),
  );
  await mkdir(join(project, '.plugsmith'));
  await symlink(users.dir, join(project, '.plugsmith', 'emulator'));

  const result = await runCli(['dev', '--cmd', 'node -e "setInterval(() => {}, 1000)"'], {
    cwd: project,
    env: { PLUGSMITH_CONFIG_DIR: await tempConfigDir() },
  });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain('.plugsmith/emulator is a symbolic link');
  expect(await users.look()).toEqual(before);
});

test('a link inside a data dir is refused, never followed: a journal linked to a profile is neither chmodded nor appended to', async () => {
  const users = await usersFolder();
  const before = await users.look();
  const profile = await readFile(join(users.dir, '.bashrc'), 'utf8');
  const dataDir = await tempDir('plugsmith-data-');
  await symlink(join(users.dir, '.bashrc'), join(dataDir, 'journal-0.jsonl'));

  await expect(startEmulator({ dataDir })).rejects.toThrow(
    `${join(dataDir, 'journal-0.jsonl')} is a symbolic link`,
  );
  expect(await users.look()).toEqual(before);
  expect(await readFile(join(users.dir, '.bashrc'), 'utf8')).toBe(profile);
});

test('a folder given with --data-dir is used as given, even through a link the user made', async () => {
  const target = await tempDir('plugsmith-target-');
  const links = await tempDir('plugsmith-links-');
  const dataDir = join(links, 'store');
  await symlink(target, dataDir);
  const proc = spawnCli([...START, '--data-dir', dataDir], {
    env: { PLUGSMITH_CONFIG_DIR: await tempConfigDir() },
  });
  const state = JSON.parse(await proc.nextLine()) as { dataDir: string };
  expect(state.dataDir).toBe(dataDir);
  expect(await proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  expect(await readdir(target)).toContain('snapshot.json');
});
