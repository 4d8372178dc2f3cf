import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';

// `plugsmith scenario validate` and `run` as a newcomer meets them on a file with many mistakes:
// the CLI spawned in a folder of scenario files, no emulator (nothing runs before the files are good).

async function folder(files: Record<string, unknown>): Promise<string> {
  const dir = await tempDir('plugsmith-scenario-validate-');
  for (const [name, content] of Object.entries(files))
    await writeFile(join(dir, name), JSON.stringify(content, null, 2));
  return dir;
}

const cli = async (dir: string, args: string[]) =>
  runCli(args, { cwd: dir, env: { PLUGSMITH_CONFIG_DIR: join(dir, '.config') } });

/** Mistakes in several steps, some of which used to show only once others were fixed. */
const MISTAKES = {
  name: 'mistakes',
  steps: [
    { id: 'conv', conversation: { agent: 5 } },
    {
      message: { conversation: '${conv.id}' },
      expect: [{ reply: 'hello' }, { delivery: { status: '200', withinMs: 'soon' } }],
    },
    { trigger: { event: 'NOPE', payload: 3, x: 1 } },
    { send: {} },
  ],
};

describe('plugsmith scenario validate', () => {
  test('lists every problem of the file at once, with path, line and column, in plain words; exit 2', async () => {
    const dir = await folder({ 'mistakes.json': MISTAKES });
    const run = await cli(dir, ['scenario', 'validate', 'mistakes.json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('9 problems in 1 scenario file:');
    for (const line of [
      'steps[0].conversation.agent (line 7, column 9): "agent" must be a string that is not empty, not the number 5',
      'steps[1].message.text (line 11, column 7): message is missing "text": what the user writes',
      'fix: add "text": "…" to message',
      'steps[1].expect[0].reply (line 16, column 11): "reply" must be an object with any of "text", "pattern" or "withinMs", not a string',
      'fix: write "reply": { "text": "…" }',
      'steps[1].expect[1].delivery.status (line 20, column 13): "status" must be "2xx" or a whole number from 100 to 599, not a string',
      'fix: write "status": "2xx" or "status": 200',
      'steps[1].expect[1].delivery.withinMs (line 21, column 13): "withinMs" must be a whole number of at least 1, not a string',
      'steps[2].trigger.event (line 28, column 9): "NOPE" is not an event kind',
      'steps[2].trigger.payload (line 29, column 9): "payload" must be an object, not the number 3',
      'steps[2].trigger.x (line 30, column 9): "x" is not a field of trigger',
      'steps[3].send (line 34, column 7): "send" is not a step kind',
    ])
      expect(run.stderr).toContain(line);
    expect(run.stderr).not.toMatch(/expected (union value|required property)/i);
  });

  test('past 50 problems the rest are counted; --json gives the count and the first 50', async () => {
    const many = {
      name: 'many',
      steps: Array.from({ length: 60 }, () => ({ wait: { ms: 'soon' } })),
    };
    const dir = await folder({
      'many.json': many,
      'fine.json': { name: 'fine', steps: [{ wait: { ms: 1 } }] },
    });
    const run = await cli(dir, ['scenario', 'validate', '.']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('60 problems in 1 scenario file:');
    expect(run.stderr).toContain('steps[49].wait.ms');
    expect(run.stderr).not.toContain('steps[50].wait.ms');
    expect(run.stderr).toContain('… and 10 more problems');
    const json = await cli(dir, ['scenario', 'validate', '.', '--json']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      files: Array<{ file: string; ok: boolean; problemCount?: number; problems?: unknown[] }>;
    };
    expect(report.ok).toBe(false);
    const byFile = Object.fromEntries(report.files.map((f) => [f.file, f]));
    expect(byFile['fine.json']).toMatchObject({ ok: true, name: 'fine', steps: 1 });
    expect(byFile['many.json']).toMatchObject({ ok: false, problemCount: 60 });
    expect(byFile['many.json'].problems).toHaveLength(50);
  });

  test('good files: each named with its steps, exit 0, no emulator needed', async () => {
    const dir = await folder({ 'fine.json': { name: 'fine', steps: [{ wait: { ms: 1 } }] } });
    const run = await cli(dir, ['scenario', 'validate', 'fine.json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ fine.json: "fine", 1 step');
    expect(run.stdout).toContain('1 scenario file: no problems');
  });

  test('a file that is not there is not found (4), with a fix that names what to pass; with a bad one beside it, 2', async () => {
    const dir = await folder({ 'mistakes.json': MISTAKES });
    for (const args of [
      ['scenario', 'validate', 'nope.json'],
      ['scenario', 'run', 'nope.json'],
    ]) {
      const run = await cli(dir, args);
      expect(run.code, run.stderr).toBe(4);
      expect(run.stderr).toContain('the scenario file');
      expect(run.stderr).toContain('nope.json" does not exist');
      expect(run.stderr).toContain('fix: name a scenario file or a folder of them');
      expect(run.stderr).not.toContain('name a file inside /');
    }
    const json = await cli(dir, ['scenario', 'validate', 'nope.json', '--json']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout).files[0].problems[0].fix).toMatch(/^name a scenario file/);
    const mixed = await cli(dir, ['scenario', 'validate', 'nope.json', 'mistakes.json']);
    expect(mixed.code).toBe(2);
  });
});

describe('plugsmith scenario run on a file with mistakes', () => {
  test('lists the same problems, all of them, and runs nothing', async () => {
    const dir = await folder({ 'mistakes.json': MISTAKES });
    const run = await cli(dir, ['scenario', 'run', 'mistakes.json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('9 problems in 1 scenario file; nothing was run:');
    expect(run.stderr).toContain('steps[2].trigger.payload (line 29, column 9)');
    expect(run.stderr).toContain('steps[3].send (line 34, column 7)');
    const json = await cli(dir, ['scenario', 'run', 'mistakes.json', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      files: [{ file: 'mistakes.json', problemCount: 9 }],
    });
  });
});

describe('contradictions', () => {
  test('"reply" and "none" in one step is a problem the CLI tells, naming both', async () => {
    const dir = await folder({
      'both.json': {
        name: 'both',
        steps: [
          { id: 'conv', conversation: {} },
          {
            message: { conversation: '${conv.id}', text: 'hi' },
            expect: [{ reply: { text: 'You said: hi' } }, { none: { reply: true, withinMs: 500 } }],
          },
        ],
      },
    });
    for (const command of ['validate', 'run']) {
      const run = await cli(dir, ['scenario', command, 'both.json']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'steps[1].expect[1].none (line 20, column 11): "none" expects no reply, but expect[0] expects one ("reply"): the step cannot pass both',
      );
      expect(run.stderr).toContain('fix: keep one of them');
    }
  });
});
