import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { LANGUAGES, scenarioProject } from '../kit/project.js';

// Issue 43, the CI job's side: `scenario run --start --junit` with a plugin that throws on one input shows the plugin's own
// error and stack beside the failed step (console and --json) and in the JUnit file's system-err, without dev's terminal.

const STACK_LINES = {
  typescript: /at replyTo \(.*dist\/reply\.js:\d+:\d+\)/,
  python: /File ".*plugin\/reply\.py", line \d+, in reply_to/,
};

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

describe.each(LANGUAGES)('a generated $language project under scenario run --start', ({ code }) => {
  test('the failed step, --json and the JUnit system-err carry the plugin error and its stack', async () => {
    const { work, dir, env } = await scenarioProject(code, {
      prefix: 'plugsmith-scenario-output-',
      replyThrows: true,
      scenarios: { 'boom.json': BOOM_SCENARIO },
    });
    const stackLine = STACK_LINES[code];

    const text = await runCli(['scenario', 'run', 'scenarios/boom.json', '--start'], {
      cwd: dir,
      env,
    });
    expect(text.code, text.stderr).toBe(1);
    const console = text.stdout + text.stderr;
    expect(console, console).toContain('the plugin wrote (untrusted):');
    expect(console).toContain('cannot reply to');
    expect(console).toMatch(stackLine);

    const junitFile = join(work, 'junit.xml');
    const json = await runCli(
      ['scenario', 'run', 'scenarios/boom.json', '--start', '--json', '--junit', junitFile],
      { cwd: dir, env },
    );
    expect(json.code, json.stderr).toBe(1);
    const parsed = JSON.parse(json.stdout);
    const results = parsed.scenarios;
    const failure = results[0].steps[1].failures[0];
    const written = failure.pluginOutput.map((line: { text: string }) => line.text).join('\n');
    expect(written).toContain('cannot reply to');
    expect(written).toMatch(stackLine);

    const junit = await readFile(junitFile, 'utf8');
    const systemErr = (/<system-err>([\s\S]*?)<\/system-err>/.exec(junit)?.[1] ?? '')
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
    expect(systemErr).toContain('cannot reply to');
    expect(systemErr).toMatch(stackLine);
  });
});
