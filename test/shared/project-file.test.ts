import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ProjectPathError,
  readProjectFile,
  writeFileReplacingLink,
  writeProjectFile,
} from '../../src/shared/project-file.js';
import { tempDir } from '../kit/index.js';

async function layout(): Promise<{ root: string; outside: string }> {
  const top = await tempDir('plugsmith-project-file-');
  const root = join(top, 'project');
  const outside = join(top, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'outside secret');
  await writeFile(join(root, 'notes.txt'), 'inside');
  return { root, outside };
}

describe('readProjectFile', () => {
  it('reads a regular file inside the root', async () => {
    const { root } = await layout();
    const data = await readProjectFile(root, 'notes.txt', { maxBytes: 100 });
    expect(data.toString()).toBe('inside');
  });

  it('refuses an absolute path, a ../ path and a link that lead outside', async () => {
    const { root, outside } = await layout();
    await symlink(outside, join(root, 'linked'));
    for (const path of ['/etc/passwd', '../outside/secret.txt', 'linked/secret.txt']) {
      await expect(readProjectFile(root, path, { maxBytes: 1000 })).rejects.toThrow(
        /leads outside the project/,
      );
    }
  });

  it('refuses /dev/zero linked into the root and a FIFO, without blocking', async () => {
    const { root } = await layout();
    await symlink('/dev/zero', join(root, 'zero'));
    await expect(readProjectFile(root, 'zero', { maxBytes: 1000 })).rejects.toThrow(
      /leads outside/,
    );
    execFileSync('mkfifo', [join(root, 'pipe')]);
    await expect(readProjectFile(root, 'pipe', { maxBytes: 1000 })).rejects.toThrow(
      /not a regular file/,
    );
  });

  it('refuses a file over the cap', async () => {
    const { root } = await layout();
    await writeFile(join(root, 'big.bin'), Buffer.alloc(2048));
    const refused = readProjectFile(root, 'big.bin', { maxBytes: 1024 });
    await expect(refused).rejects.toBeInstanceOf(ProjectPathError);
    await expect(refused).rejects.toThrow(/larger than 1024 bytes/);
  });
});

describe('writeProjectFile', () => {
  it('writes inside the root, creating folders', async () => {
    const { root } = await layout();
    const written = await writeProjectFile(root, 'recorded/a/b.json', '{}');
    expect(await readFile(written, 'utf8')).toBe('{}');
  });

  it('refuses a linked folder that leads outside and makes no folder there', async () => {
    const { root, outside } = await layout();
    await symlink(outside, join(root, 'recorded'));
    await expect(writeProjectFile(root, 'recorded/new/x.json', '{}')).rejects.toThrow(
      /leads outside the project/,
    );
    await expect(lstat(join(outside, 'new'))).rejects.toThrow(/ENOENT/);
  });

  it('replaces a planted link, dangling or not, instead of following it', async () => {
    const { root, outside } = await layout();
    const victim = join(outside, 'secret.txt');
    await symlink(victim, join(root, 'report.xml'));
    await symlink(join(outside, 'created-by-link'), join(root, 'dangling.xml'));
    await writeFileReplacingLink(join(root, 'report.xml'), '<x/>');
    await writeProjectFile(root, 'dangling.xml', '<y/>');
    expect(await readFile(victim, 'utf8')).toBe('outside secret');
    expect((await lstat(join(root, 'report.xml'))).isSymbolicLink()).toBe(false);
    await expect(readlink(join(root, 'dangling.xml'))).rejects.toThrow();
    await expect(lstat(join(outside, 'created-by-link'))).rejects.toThrow(/ENOENT/);
  });
});
