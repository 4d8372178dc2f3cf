import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { watchSources } from '../../src/dev/source-watch.js';
import { until } from '../kit/index.js';

test('a change to a watched kind of file restarts; other files, virtualenvs, caches and hidden folders do not', async () => {
  const root = await mkdtemp(join(tmpdir(), 'plugsmith-source-watch-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  for (const folder of ['plugin', 'plugin/__pycache__', '.venv/lib', 'venv/lib', '.data'])
    await mkdir(join(root, folder), { recursive: true });
  const changes: string[] = [];
  const problems: string[] = [];
  const watcher = watchSources(
    root,
    ['*.py'],
    (file) => changes.push(file),
    (message) => problems.push(message),
  );
  onTestFinished(() => watcher.close());
  await watcher.ready;

  // Not the plugin's sources: none of these may restart it.
  await writeFile(join(root, '.venv/lib/site.py'), 'x = 1\n');
  await writeFile(join(root, 'venv/lib/site.py'), 'x = 1\n');
  await writeFile(join(root, 'plugin/__pycache__/reply.cpython-311.py'), 'x = 1\n');
  await writeFile(join(root, '.data/tokens.json'), '{}\n');
  await writeFile(join(root, 'plugin/notes.txt'), 'notes\n');
  await new Promise((r) => setTimeout(r, 600));
  expect(changes).toEqual([]);

  await writeFile(join(root, 'plugin/reply.py'), 'def reply_to(text): return text\n');
  await until('the change to plugin/reply.py', () => changes.length > 0);
  expect(changes).toEqual([join('plugin', 'reply.py')]);

  // A file of the folder itself is watched too; saves in quick succession are one change.
  await writeFile(join(root, 'main.py'), 'a = 1\n');
  await writeFile(join(root, 'main.py'), 'a = 2\n');
  await until('the change to main.py', () => changes.length > 1);
  await new Promise((r) => setTimeout(r, 400));
  expect(changes).toEqual([join('plugin', 'reply.py'), 'main.py']);
  expect(problems).toEqual([]);
});

test('a file replaced by renaming a new one over it (sed -i, an atomic save) is seen on every save', async () => {
  const root = await mkdtemp(join(tmpdir(), 'plugsmith-source-watch-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'plugin'));
  const reply = join(root, 'plugin', 'reply.py');
  await writeFile(reply, 'version = 0\n');
  const changes: string[] = [];
  const problems: string[] = [];
  const watcher = watchSources(
    root,
    ['*.py'],
    (file) => changes.push(file),
    (message) => problems.push(message),
  );
  onTestFinished(() => watcher.close());
  await watcher.ready;

  // As `sed -i` does it: a new file beside the old one, renamed over it. Node 20's recursive fs.watch saw the first only.
  for (const version of [1, 2, 3]) {
    const replacement = join(root, 'plugin', `sed${version}XYZ`);
    await writeFile(replacement, `version = ${version}\n`);
    await rename(replacement, reply);
    await until(`save ${version}`, () => changes.length === version);
  }
  expect(changes).toEqual([1, 2, 3].map(() => join('plugin', 'reply.py')));

  // A folder made after the start is watched too.
  await mkdir(join(root, 'plugin', 'handlers'));
  await new Promise((r) => setTimeout(r, 300));
  await writeFile(join(root, 'plugin', 'handlers', 'extra.py'), 'x = 1\n');
  await until("the new folder's file", () => changes.length === 4);
  expect(changes[3]).toBe(join('plugin', 'handlers', 'extra.py'));
  expect(problems).toEqual([]);
});

test('a link out of the project is not followed: a change in the folder it points to does not restart the plugin', async () => {
  const root = await mkdtemp(join(tmpdir(), 'plugsmith-source-watch-'));
  const outside = await mkdtemp(join(tmpdir(), 'plugsmith-outside-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  onTestFinished(() => rm(outside, { recursive: true, force: true }));
  // A big folder elsewhere (a checkout linked in as a dependency, /etc), linked into the project, folder and file.
  for (let i = 0; i < 40; i++) await mkdir(join(outside, `pkg${i}`, 'src'), { recursive: true });
  await writeFile(join(outside, 'pkg0', 'src', 'lib.py'), 'x = 0\n');
  await mkdir(join(root, 'plugin'));
  await writeFile(join(root, 'plugin', 'reply.py'), 'x = 0\n');
  await symlink(outside, join(root, 'plugin', 'vendor'), 'dir');
  await symlink(join(outside, 'pkg0', 'src', 'lib.py'), join(root, 'plugin', 'lib.py'));
  const changes: string[] = [];
  const problems: string[] = [];
  const watcher = watchSources(
    root,
    ['*.py'],
    (file) => changes.push(file),
    (message) => problems.push(message),
  );
  onTestFinished(() => watcher.close());
  await watcher.ready;

  await writeFile(join(outside, 'pkg0', 'src', 'lib.py'), 'x = 1\n');
  await writeFile(join(outside, 'pkg7', 'src', 'new.py'), 'x = 1\n');
  await new Promise((r) => setTimeout(r, 600));
  expect(changes).toEqual([]);

  // The project's own sources still restart it.
  await writeFile(join(root, 'plugin', 'reply.py'), 'x = 1\n');
  await until('the change to plugin/reply.py', () => changes.length > 0);
  expect(changes).toEqual([join('plugin', 'reply.py')]);
  expect(problems).toEqual([]);
});

test('a project folder reached through a link is watched', async () => {
  const real = await mkdtemp(join(tmpdir(), 'plugsmith-source-watch-'));
  const links = await mkdtemp(join(tmpdir(), 'plugsmith-links-'));
  onTestFinished(() => rm(real, { recursive: true, force: true }));
  onTestFinished(() => rm(links, { recursive: true, force: true }));
  await symlink(real, join(links, 'project'), 'dir');
  const changes: string[] = [];
  const watcher = watchSources(
    join(links, 'project'),
    ['*.py'],
    (file) => changes.push(file),
    () => undefined,
  );
  onTestFinished(() => watcher.close());
  await watcher.ready;
  await writeFile(join(real, 'main.py'), 'x = 1\n');
  await until('the change to main.py', () => changes.length > 0);
  expect(changes).toEqual(['main.py']);
});
