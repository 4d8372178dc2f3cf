import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { CLI } from '../kit/cli-process.js';
import { ORG, useCliEnv } from '../kit/cli-env.js';

const t = useCliEnv();
const parent = ['--parent-type', 'ORG', '--parent-id', ORG];

interface Outcome {
  path: string;
  fileName: string;
  fileId: string | null;
  size: number | null;
  status: 'UPLOADED' | 'FAILED';
  error: string | null;
}

async function makeFiles(prefix: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const path = join(t.dir, `${prefix}-${i}.txt`);
    await writeFile(path, `${prefix} file ${i}\n`.repeat(i + 1));
    paths.push(path);
  }
  return paths;
}

describe.concurrent('plugsmith files', { timeout: 120_000 }, () => {
  test("upload names each file's media type from its extension (mime-db), octet-stream when unknown", async () => {
    const names = ['notes.md', 'config.yaml', 'song.flac', 'data.unknownext'];
    const paths = names.map((n) => join(t.dir, n));
    for (const path of paths) await writeFile(path, 'x\n');
    const run = await t.cli([
      'files',
      'upload',
      ...paths,
      ...parent,
      '--folder',
      'cli/types',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const listed = (await t.json([
      'files',
      'list',
      ...parent,
      '--filter',
      'folder=cli/types',
      '--all',
    ])) as Array<{ fileName: string; contentType: string }>;
    expect(Object.fromEntries(listed.map((f) => [f.fileName, f.contentType]))).toEqual({
      'notes.md': 'text/markdown',
      'config.yaml': 'text/yaml',
      'song.flac': 'audio/x-flac',
      'data.unknownext': 'application/octet-stream',
    });
  });

  test('upload of 12 files asks for URLs in two batches, streams each, marks them UPLOADED; list, url and status work on them', async () => {
    const paths = await makeFiles('batch', 12);
    const run = await t.cli([
      'files',
      'upload',
      ...paths,
      ...parent,
      '--folder',
      'cli/batch',
      '--json',
      '--verbose',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const outcomes = JSON.parse(run.stdout) as Outcome[];
    expect(outcomes.map((o) => [o.path, o.status, o.error])).toEqual(
      paths.map((p) => [p, 'UPLOADED', null]),
    );
    // Batches of ten: two URL requests, twelve PUTs to signed URLs, twelve status updates.
    expect(run.stderr.match(/> POST \S+\/api\/generate-upload-url 201/g)).toHaveLength(2);
    expect(run.stderr.match(/> PUT /g)).toHaveLength(12);
    expect(run.stderr.match(/> PATCH \S+\/api\/status 200/g)).toHaveLength(12);
    // No progress bar without a terminal.
    expect(run.stderr).not.toContain('\r');

    const listed = await t.json([
      'files',
      'list',
      ...parent,
      '--filter',
      'folder=cli/batch',
      '--all',
      '--limit',
      '5',
    ]);
    expect(listed).toHaveLength(12);
    expect(listed.every((f: { status: string }) => f.status === 'UPLOADED')).toBe(true);

    const third = outcomes[2];
    const url = await t.cli(['files', 'url', third.fileId!, '--expires-in', '60']);
    expect(url.code, url.stderr).toBe(0);
    const download = await request(url.stdout.trim());
    expect(download.statusCode).toBe(200);
    expect(await download.body.text()).toBe(await readFile(paths[2], 'utf8'));
    expect(await t.json(['files', 'url', third.fileId!])).toMatchObject({
      url: expect.stringMatching(/^http/),
    });

    expect(await t.json(['files', 'status', third.fileId!, 'processing'])).toMatchObject({
      id: third.fileId,
      status: 'PROCESSING',
    });
    const human = await t.cli(['files', 'status', third.fileId!, 'COMPLETED']);
    expect(human.stdout).toMatch(/^status\s+COMPLETED$/m);
    const [illegal, noReason, badStatus] = await Promise.all([
      t.cli(['files', 'status', third.fileId!, 'UPLOADED']),
      t.cli(['files', 'status', third.fileId!, 'FAILED']),
      t.cli(['files', 'status', third.fileId!, 'DONE']),
    ]);
    expect(illegal.code).toBe(6);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain('--error');
    expect(badStatus.code).toBe(2);

    const table = await t.cli([
      'files',
      'list',
      ...parent,
      '--search',
      'batch-1',
      '--sort',
      'fileName',
      '--order',
      'asc',
    ]);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+SIZE\s+TYPE\s+STATUS\s+PUBLIC$/m);
    expect(table.stdout).toContain('cli/batch/batch-10.txt');
  });

  test('a file that grows while it is sent fails alone: FAILED with the reason on its record, the others UPLOADED, exit 1', async () => {
    const [before, after] = await makeFiles('steady', 2);
    const growing = join(t.dir, 'growing.log');
    await writeFile(growing, 'x'.repeat(64 * 1024));
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await appendFile(growing, 'more log lines\n'.repeat(200));
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const run = await t.cli([
      'files',
      'upload',
      before,
      growing,
      after,
      ...parent,
      '--folder',
      'cli/grow',
      '--json',
      '--concurrency',
      '1',
    ]);
    writing = false;
    await writer;
    expect(run.code, run.stderr).toBe(1);
    const outcomes = JSON.parse(run.stdout) as Outcome[];
    expect(outcomes.map((o) => o.status)).toEqual(['UPLOADED', 'FAILED', 'UPLOADED']);
    expect(outcomes[1].error).toContain(`${growing} changed during the upload`);
    expect(outcomes[1].fileId).toMatch(/^file_/);
    expect(run.stderr).toContain('1 of 3 files failed');

    const records = await t.json(['files', 'list', ...parent, '--filter', 'folder=cli/grow']);
    const failed = records.find((f: { id: string }) => f.id === outcomes[1].fileId);
    expect(failed).toMatchObject({
      status: 'FAILED',
      errorMessage: expect.stringContaining('changed during the upload'),
    });
  });

  test('a missing path and a name the platform refuses fail alone; the rest of the batch is uploaded (a path given twice, twice)', async () => {
    const [good] = await makeFiles('mixed', 1);
    const refusedName = join(t.dir, 'bad:name.txt');
    await writeFile(refusedName, 'colon in the name');
    const missing = join(t.dir, 'gone.txt');
    const run = await t.cli(['files', 'upload', good, refusedName, missing, good, ...parent]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^FILE\s+STATUS\s+FILE ID\s+SIZE\s+ERROR$/m);
    expect(run.stdout.match(new RegExp(`^${good}\\s+UPLOADED\\s+file_`, 'gm'))).toHaveLength(2);
    expect(run.stdout).toMatch(/bad:name\.txt\s+FAILED\s+-\s+.*fileName/);
    expect(run.stdout).toMatch(/gone\.txt\s+FAILED\s+-\s+-\s+.*no such file/);
    expect(run.stderr).toContain('2 of 4 files failed (2 uploaded, 2 failed)');

    // Every failure of the same kind: that kind's exit code (a refused name is validation, 5).
    const only = await t.cli(['files', 'upload', refusedName, ...parent, '--json']);
    expect(only.code).toBe(5);
    expect(JSON.parse(only.stdout)[0]).toMatchObject({ status: 'FAILED', fileId: null });
  });

  test('without a terminal a missing --parent-id is exit 2 naming the flag; files list needs both parent flags', async () => {
    const [good] = await makeFiles('noparent', 1);
    const [upload, list] = await Promise.all([
      t.cli(['files', 'upload', good, '--parent-type', 'ORG']),
      t.cli(['files', 'list', '--parent-type', 'ORG']),
    ]);
    expect(upload.code).toBe(2);
    expect(upload.stderr).toContain('pass --parent-id');
    const bare = await t.cli(['files', 'upload', good]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('missing --parent-type and --parent-id: pass them');
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('--parent-id');
  });

  test('on a terminal the upload draws a progress bar on stderr and colours the table', async () => {
    const paths = await makeFiles('tty', 3);
    const command = [process.execPath, CLI, 'files', 'upload', ...paths, ...parent]
      .map((a) => `'${a}'`)
      .join(' ');
    const env: Record<string, string> = {
      ...process.env,
      ...t.env,
      TERM: 'xterm-256color',
      COLUMNS: '120',
    } as Record<string, string>;
    delete env.NO_COLOR;
    delete env.CI;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stdin.end();
    const [code] = await once(child, 'close');
    expect(code, output).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matches the terminal's escape sequences, which start with ESC
    expect(output).toMatch(/\r\x1b\[2K.*\d+%\s+\d\/3 files/);
    expect(output).toContain('\x1b[1mFILE'); // bold header
    expect(output).toMatch(/3 uploaded, 0 failed/);
  });
});
