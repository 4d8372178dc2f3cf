import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';
import { pythonProject, setDevCommand, typescriptProject } from '../kit/project.js';

// Issue 43: `scenario run --start` with a plugin that never comes up fails the run with the plugin's own output and exit
// code 8, in the console, --json and a JUnit <error> per scenario; no dev-loop advice. A plugin that exits or crashes fails
// it at once: the runs below allow 600 s to start, so only the exit seen ends them. The TypeScript plugin runs under a
// watcher (`node --watch`), which keeps running after the crash, as `tsx watch` does.

const BOOM = 'boom at start';

const LANGUAGES = [
  {
    language: 'TypeScript',
    async project(dir: string, env: Record<string, string>) {
      await typescriptProject(dir, 'EVENT_HANDLER', env);
      await setDevCommand(dir, 'node --watch dist/main.js');
    },
    entry: 'dist/main.js',
    crash: `console.log('loading the plugin');\nthrow new Error('${BOOM}');\n`,
    silent: `console.log('loading the plugin');\nsetInterval(() => undefined, 1000);\n`,
    stackLine: /at file:\/\/.*dist\/main\.js:2:\d+/,
    stopped:
      /`node --watch dist\/main\.js` crashed .* before its webhook answered its challenge \(Error: boom at start\)/,
  },
  {
    language: 'Python',
    async project(dir: string, env: Record<string, string>) {
      await pythonProject(dir, 'EVENT_HANDLER', env);
    },
    entry: 'plugin/__main__.py',
    crash: `print("loading the plugin", flush=True)\nraise RuntimeError("${BOOM}")\n`,
    silent: `import time\nprint("loading the plugin", flush=True)\nwhile True:\n    time.sleep(1)\n`,
    stackLine: /File ".*plugin\/__main__\.py", line 2, in <module>/,
    stopped: /`python3 -m plugin` exited with code 1 .* before its webhook answered its challenge/,
  },
];

/** The text of XML character data, unescaped. */
function xmlText(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

async function environment() {
  const work = await tempDir('plugsmith-start-failure-');
  const env = {
    PLUGSMITH_CONFIG_DIR: join(work, 'config'),
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  };
  return { work, env, dir: join(work, 'plugin') };
}

describe.each(LANGUAGES)(
  'a generated $language project whose plugin does not come up',
  ({ project, entry, crash, silent, stackLine, stopped }) => {
    test('a crash at start fails the run at once: its output, exit code 8, --json and a JUnit error per scenario', async () => {
      const { work, env, dir } = await environment();
      await project(dir, env);
      await writeFile(join(dir, entry), crash);
      const junitFile = join(work, 'junit.xml');

      const run = await runCli(
        ['scenario', 'run', '--start', '--start-timeout', '600', '--json', '--junit', junitFile],
        { cwd: dir, env },
      );
      expect(run.code, run.stdout + run.stderr).toBe(8);
      // The console: why, what the plugin wrote (the error and its stack), and no advice for a terminal someone watches.
      expect(run.stderr).toContain('the plugin did not start, so no scenario was run');
      expect(run.stderr).toMatch(stopped);
      expect(run.stderr).toContain('the plugin wrote (untrusted):');
      expect(run.stderr).toContain('loading the plugin');
      expect(run.stderr).toContain(BOOM);
      expect(run.stderr).toMatch(stackLine);
      for (const advice of ['keeps running', 'save', 'restarting in', 'waiting for a change'])
        expect(run.stderr).not.toContain(advice);

      const report = JSON.parse(run.stdout);
      expect(report.ok).toBe(false);
      expect(report.scenarios).toEqual([]);
      expect(report.start.exitCode).toBe(8);
      expect(report.start.reason).toMatch(stopped);
      const written = report.start.pluginOutput.map((l: { text: string }) => l.text).join('\n');
      expect(written).toContain(BOOM);
      expect(written).toMatch(stackLine);

      const junit = await readFile(junitFile, 'utf8');
      // The template ships two scenarios: each a testcase in error, none a failure.
      expect(junit).toMatch(/<testsuite [^>]*tests="2" failures="0" errors="2"/);
      const cases = [...junit.matchAll(/<testcase [\s\S]*?<\/testcase>/g)].map((m) => m[0]);
      expect(cases).toHaveLength(2);
      for (const testcase of cases) {
        expect(testcase).toMatch(
          /<error message="the plugin did not start: [^"]*" type="PluginStartError">/,
        );
        const systemErr = xmlText(/<system-err>([\s\S]*?)<\/system-err>/.exec(testcase)?.[1] ?? '');
        expect(systemErr).toContain(BOOM);
        expect(systemErr).toMatch(stackLine);
      }
    });

    test('a plugin that never listens fails the run at --start-timeout, saying nothing answered', async () => {
      const { work, env, dir } = await environment();
      await project(dir, env);
      await writeFile(join(dir, entry), silent);
      const junitFile = join(work, 'junit.xml');

      const run = await runCli(
        ['scenario', 'run', '--start', '--start-timeout', '3', '--junit', junitFile],
        { cwd: dir, env },
      );
      expect(run.code, run.stdout + run.stderr).toBe(8);
      expect(run.stderr).toMatch(
        /runs, but nothing answered at http:\/\/127\.0\.0\.1:\d+\/webhook within 3 s/,
      );
      expect(run.stderr).toContain('fix: make the plugin listen on PORT');
      expect(run.stderr).toContain('--start-timeout 30');
      const junit = await readFile(junitFile, 'utf8');
      expect(junit).toMatch(/<testsuite [^>]*tests="2" failures="0" errors="2"/);
      expect(junit).toContain('nothing answered at');
    });
  },
);

test('--start-timeout without --start is a usage error', async () => {
  const { env, work } = await environment();
  const run = await runCli(['scenario', 'run', '--start-timeout', '5'], { cwd: work, env });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain('--start-timeout bounds the plugin that --start starts');
});
