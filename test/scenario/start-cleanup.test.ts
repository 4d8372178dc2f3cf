import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { LANGUAGES, scenarioProject } from '../kit/project.js';

// Issue 45: what `scenario run --start` leaves behind. Its emulator is thrown away after the run, so the plugin's state for
// it (the installation tokens of PLUGIN_INSTALLED) goes to a throwaway folder, not the project's .data/tokens.json; and a
// failure names its delivery without a dashboard link to that emulator, saying it stopped with the run.

const BOOM_SCENARIO = {
  name: 'a message the plugin cannot answer',
  steps: [
    { id: 'conv', conversation: {} },
    {
      message: { conversation: '${conv.id}', text: 'boom now' },
      expect: [{ delivery: { type: 'AGENT_MESSAGE_RECEIVED', status: '2xx', retried: false } }],
    },
  ],
};

const NOTE = '(in the emulator --start started, stopped with the run)';

describe.each(LANGUAGES)('a generated $language project under scenario run --start', ({ code }) => {
  test('keeps no tokens in .data/, leaves no throwaway folder, and links no delivery to its stopped emulator', async () => {
    const { work, dir, ...project } = await scenarioProject(code, {
      prefix: 'plugsmith-start-cleanup-',
      replyThrows: true,
      scenarios: { 'boom.json': BOOM_SCENARIO },
    });
    // Where the run's throwaway folders go, to see that none is left.
    const env = { ...project.env, TMPDIR: join(work, 'tmp') };
    await mkdir(env.TMPDIR);
    const junitFile = join(work, 'junit.xml');

    const run = await runCli(
      [
        'scenario',
        'run',
        '--start',
        'scenarios/message-answered.json',
        'scenarios/boom.json',
        '--junit',
        junitFile,
      ],
      { cwd: dir, env },
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    // The plugin was installed and replied with its installation token: the scenario that needs it passed.
    expect(run.stdout).toContain('1 passed, 1 failed');
    expect(existsSync(join(dir, '.data', 'tokens.json'))).toBe(false);
    expect(
      (await readdir(env.TMPDIR)).filter((name) => name.startsWith('plugsmith-start-')),
    ).toEqual([]);

    expect(run.stdout).toMatch(
      /delivery: +dlv_\w+ +\(in the emulator --start started, stopped with the run\)/,
    );
    expect(run.stdout + run.stderr).not.toContain('/_emulator/dashboard');
    const junit = await readFile(junitFile, 'utf8');
    expect(junit).toContain(NOTE);
    expect(junit).not.toContain('/_emulator/dashboard');
  });
});
