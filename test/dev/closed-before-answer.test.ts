import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { until } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import { LANGUAGES, scenarioProject, type Language } from '../kit/project.js';

// A delivery the plugin received, and then died on before it answered (an uncaught exception in Node, `os._exit` in
// Python: the process exits with the request in hand). The emulator's first send fails on the connection the plugin
// closed; it sends once more on a fresh connection (the remedy for a kept-alive socket closed in between), which the gone
// plugin refuses. The attempt read "connection refused by http://127.0.0.1:…: is the webhook server running?", telling the
// author the request never reached a plugin whose own output showed it handling it. Both templates: dev restarts the
// plugin after its exit, so the same delivery's retry is answered.

/** Makes the generated plugin die, once (a `crashed` file marks it), on a message holding "crash", after reading its delivery. */
async function makeReplyDie(dir: string, language: Language): Promise<void> {
  const [file, from, to] =
    language === 'typescript'
      ? [
          'dist/reply.js',
          'export async function replyTo(text) {',
          [
            "import { existsSync, writeFileSync } from 'node:fs';",
            'export async function replyTo(text) {',
            "    if (text.includes('crash') && !existsSync('crashed')) {",
            "        writeFileSync('crashed', '');",
            "        setImmediate(() => { throw new Error('the plugin died in the middle of a delivery'); });",
            '        await new Promise(() => undefined);',
            '    }',
          ].join('\n'),
        ]
      : [
          'plugin/reply.py',
          'def reply_to(text: str) -> str:',
          [
            'def reply_to(text: str) -> str:',
            '    import os, sys',
            '    if "crash" in text and not os.path.exists("crashed"):',
            '        open("crashed", "w").close()',
            '        print("the plugin died in the middle of a delivery", file=sys.stderr, flush=True)',
            '        os._exit(1)',
          ].join('\n'),
        ];
  const path = join(dir, file);
  const source = await readFile(path, 'utf8');
  const changed = source.replace(from, to);
  expect(changed).not.toBe(source);
  await writeFile(path, changed);
}

describe.each(LANGUAGES)('a generated $language project', ({ code: language }) => {
  test('dev: a delivery the plugin received and died on reads "closed before an answer", not "connection refused"', {
    timeout: 180_000,
  }, async () => {
    const { dir, env } = await scenarioProject(language);
    await makeReplyDie(dir, language);
    const port = await freePort();
    const dev = spawnCli(
      ['dev', '--plugin-port', String(port), '--emulator-port', '0', '--messaging-port', '0'],
      { cwd: dir, env },
    );
    // dev's stdout: a line per delivery attempt.
    const attempts = () => dev.stdoutLines();
    await until('dev to be ready', () => /ready: /.test(dev.stderr()), {
      timeoutMs: 90_000,
      explain: () => dev.stderr(),
    });

    const triggered = await runCli(
      ['trigger', 'AGENT_MESSAGE_RECEIVED', '--set', 'message.content=please crash', '--json'],
      { cwd: dir, env },
    );
    expect(triggered.code, triggered.stderr).toBe(1);
    const first = JSON.parse(triggered.stdout).delivery.attempts[0];
    const explain = `${JSON.stringify(first)}\n${dev.stderr()}`;
    // The plugin had the request: nothing answered, and its own output says it died handling it.
    expect(first.responseStatus, explain).toBeNull();
    expect(dev.stderr()).toContain('the plugin died in the middle of a delivery');
    // Whether the emulator's resend on a fresh connection met the process still dying or already gone is timing: either
    // way the words say the connection carrying the request was closed before an answer.
    expect(first.error, explain).toMatch(
      new RegExp(
        `^the connection to http://127\\.0\\.0\\.1:${port} was closed before an answer(; a new one was refused \\(the server stopped\\))?$`,
      ),
    );
    expect(first.error).not.toMatch(/connection refused/);

    // dev restarted the plugin; the retry is answered, and its line says nothing of a refused connection either.
    await until(
      'the retry delivered',
      () => attempts().some((line) => /delivered {2}HTTP 200 .* attempt 2 /.test(line)),
      { timeoutMs: 60_000, explain: () => `${attempts().join('\n')}\n${dev.stderr()}` },
    );
    expect(attempts().join('\n')).not.toMatch(/connection refused/);
    expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});
