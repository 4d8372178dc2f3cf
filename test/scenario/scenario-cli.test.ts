import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, spawnCli, type CliProcess } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { tempDir, until } from '../kit/index.js';
import { typescriptProject } from '../kit/project.js';

// `plugsmith scenario run` and `record` as a user runs them: a project from `plugsmith init`
// (EVENT_HANDLER, its compiled sources), `plugsmith dev` running it against the project's
// emulator, and the CLI spawned in the project for each command.

let dir: string;
let env: Record<string, string>;
let dev: CliProcess | undefined;
/** The kit's teardown of dev: SIGKILL if still running, then whatever it started. */
let killDev: (() => void | Promise<void>) | undefined;

// Hooks registered at the top level: an afterAll called inside beforeAll is never run, and dev outlived the suite.
afterAll(async () => {
  // Stopped as a user stops it, so that it stops its plugin; the kit kills whatever is left after.
  await dev?.stop('SIGTERM');
  await killDev?.();
});

const cli = (args: string[]) => runCli(args, { cwd: dir, env });

beforeAll(async () => {
  const work = await tempDir('plugsmith-scenario-');
  dir = join(work, 'answers');
  env = {
    PLUGSMITH_CONFIG_DIR: join(work, 'config'),
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  };
  await typescriptProject(dir, 'EVENT_HANDLER', env);
  const port = await freePort();
  dev = spawnCli(
    ['dev', '--emulator-port', '0', '--messaging-port', '0', '--plugin-port', String(port)],
    {
      cwd: dir,
      env,
      onTestFinished: (cleanup) => {
        killDev = cleanup;
      },
    },
  );
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
}, 120_000);

describe('plugsmith scenario run against dev and the EVENT_HANDLER template', () => {
  test("passes the template's own scenarios, each step with a mark and a time", async () => {
    const run = await cli(['scenario', 'run']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('a message is answered once with what the user said');
    expect(run.stdout).toMatch(/ {2}✓ conv: conversation with the plugin's agent {2}[\d.]+ m?s/);
    expect(run.stdout).toMatch(/ {2}✓ message "hello" {2}[\d.]+ m?s/);
    expect(run.stdout).toMatch(/✓ 2 passed \(/);
  });

  test('--faults duplicate=1 still passes (the template answers a message once), the seed told', async () => {
    const run = await cli(['scenario', 'run', '--faults', 'duplicate=1', '--faults-seed', '3']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('under faults duplicate=1 (seed 3;');
  });

  test('--json gives each scenario and step; --junit writes a JUnit report, one testcase per scenario', async () => {
    const report = join(dir, 'report.xml');
    const run = await cli(['scenario', 'run', '--json', '--junit', report]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.ok).toBe(true);
    expect(result.scenarios).toHaveLength(2);
    expect(result.scenarios[0].steps[1]).toMatchObject({
      kind: 'message',
      ok: true,
      result: { id: expect.stringMatching(/^msg_/) },
    });
    const xml = await readFile(report, 'utf8');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
    expect(wellFormed(xml)).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('tests="2" failures="0"');
  });

  test('the deliveries carry the scenario name, and logs --scenario filters by it', async () => {
    const name = 'a message is answered once with what the user said';
    const tagged = await cli(['logs', '--scenario', name, '--json']);
    expect(tagged.code, tagged.stderr).toBe(0);
    const deliveries = JSON.parse(tagged.stdout) as Array<{ scenario?: string; type: string }>;
    expect(deliveries.length).toBeGreaterThan(0);
    for (const delivery of deliveries) expect(delivery.scenario).toBe(name);
    const none = await cli(['logs', '--scenario', 'no such scenario', '--json']);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  test('a bad file: every problem with its path and a fix, exit 2, nothing run', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        name: 'bad',
        steps: [
          { conversaton: {} },
          { message: { conversation: '${cnv.id}', text: 'hi' } },
          { trigger: { event: 'AGENT_MESAGE_RECEIVED' } },
          { trigger: { event: 'AGENT_MESSAGE_RECEIVED', payload: { mesage: { content: 'x' } } } },
        ],
      }),
    );
    const run = await cli(['scenario', 'run', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('4 problems in 1 scenario file; nothing was run');
    expect(run.stderr).toMatch(
      /steps\[0\]\.conversaton \(line 1, column \d+\): "conversaton" is not a step kind/,
    );
    expect(run.stderr).toContain('did you mean "conversation"?');
    expect(run.stderr).toContain('names step "cnv"');
    expect(run.stderr).toContain('did you mean "AGENT_MESSAGE_RECEIVED"?');
    expect(run.stderr).toContain('steps[3].trigger.payload.mesage');
    expect(run.stdout).toBe('');
  });

  test('--fault-matrix runs each scenario clean and under each fault kind alone, with one seed', async () => {
    const run = await cli([
      'scenario',
      'run',
      'scenarios/message-answered.json',
      '--fault-matrix',
      '--faults-seed',
      '11',
      '--json',
    ]);
    const result = JSON.parse(run.stdout);
    expect(result.matrix.map((c: { fault: string }) => c.fault)).toEqual([
      'clean',
      'duplicate',
      'delay',
      'reorder',
      'drop',
      'timeout-after-answer',
    ]);
    for (const cell of result.matrix) expect(cell.seed).toBe('11');
    expect(run.code).toBe(result.matrix.every((c: { ok: boolean }) => c.ok) ? 0 : 1);
  });

  test('a chat, then record, then run passes; a changed reply fails with expected and observed shown', async () => {
    const conversation = await cli([
      'conversations',
      'create',
      '--character',
      'char_nova',
      '--json',
    ]);
    expect(conversation.code, conversation.stderr).toBe(0);
    const conversationId = JSON.parse(conversation.stdout).id as string;
    for (const text of ['what is new?', 'thanks'])
      expect((await cli(['messages', 'send', conversationId, text])).code).toBe(0);
    // The plugin's replies are written before it answers the deliveries.
    await dev!.lineMatching(/AGENT_MESSAGE_RECEIVED\s+delivered/);
    await dev!.lineMatching(/AGENT_MESSAGE_RECEIVED\s+delivered/);

    const recorded = await cli(['scenario', 'record', '-o', 'scenarios/x.json']);
    expect(recorded.code, recorded.stderr).toBe(0);
    const file = JSON.parse(await readFile(join(dir, 'scenarios/x.json'), 'utf8'));
    expect(file.$schema).toBe('../node_modules/plugsmith/scenario.schema.json');
    const messages = file.steps.filter((s: Record<string, unknown>) => s.message);
    expect(messages.map((s: { message: { text: string } }) => s.message.text)).toEqual([
      'what is new?',
      'thanks',
    ]);
    expect(messages[0].message.conversation).toBe('${conv1.id}');
    expect(messages[0].expect).toEqual([
      { reply: { text: 'You said: what is new?' } },
      { replies: { count: 1 } },
      {
        delivery: { type: 'AGENT_MESSAGE_RECEIVED', count: 1, status: '2xx', retried: false },
      },
    ]);
    const replay = await cli(['scenario', 'run', 'scenarios/x.json']);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);

    // The plugin's reply changes (rebuilt, and the source change restarts it under dev).
    const compiled = join(dir, 'dist/reply.js');
    await writeFile(
      compiled,
      (await readFile(compiled, 'utf8')).replace('You said: ', 'You wrote: '),
    );
    const source = join(dir, 'src/reply.ts');
    await writeFile(source, (await readFile(source, 'utf8')).replace('You said: ', 'You wrote: '));
    await until('the plugin restarted', () => dev!.stderr().split('is listening at').length > 2);
    const changed = await cli(['scenario', 'run', 'scenarios/x.json']);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('expectation: reply {"text":"You said: what is new?"}');
    expect(changed.stdout).toContain('expected:    a reply "You said: what is new?"');
    expect(changed.stdout).toContain('observed:    "You wrote: what is new?"');
    expect(changed.stdout).toMatch(
      /delivery: {4}dlv_\S+ {2}http:\/\/127\.0\.0\.1:\d+\/_emulator\/dashboard\/#\/deliveries\/dlv_/,
    );
    expect(changed.stdout).toContain('- message "thanks"  skipped');
    expect(changed.stdout).toContain('0 passed, 1 failed');
  });
});

describe('plugsmith scenario run --start', () => {
  test('starts an emulator and the plugin, runs, stops everything, and passes the exit code through', async () => {
    const run = await cli(['scenario', 'run', '--start', 'scenarios/message-answered.json']);
    // The reply was changed above: the recording's expectation of the template fails (exit 1).
    const passed = run.stdout.includes('1 passed');
    expect(run.code, run.stdout + run.stderr).toBe(passed ? 0 : 1);
    expect(run.stderr).toMatch(/started an emulator at http:\/\/127\.0\.0\.1:\d+ and the plugin/);
  });
});

/** A small check that the XML nests: every tag closed in order, attributes quoted, no bare `&` or `<`. */
function wellFormed(xml: string): boolean {
  const body = xml.replace(/^<\?xml[^>]*\?>\s*/, '');
  const stack: string[] = [];
  const tag =
    /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|&(?!amp;|lt;|gt;|quot;|apos;)|<(?![A-Za-z/])/g;
  for (const match of body.matchAll(tag)) {
    if (!match[2]) return false;
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) {
      if (stack.pop() !== name) return false;
    } else stack.push(name);
  }
  return stack.length === 0;
}
