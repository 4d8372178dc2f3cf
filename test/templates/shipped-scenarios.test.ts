import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';
import { pythonProject, typescriptProject } from '../kit/project.js';

// The shipped EVENT_HANDLER scenarios check every message's delivery (issue 45): a plugin that
// answers 500 to the first attempt of every second message (the retry then answers it) fails them,
// in both languages. Each generated plugin is broken so, and `scenario run --start` (the CI
// command) must fail on the retried delivery.

const BLANK = {
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_TOKEN: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
};

/** Replaces `anchor` in a file by `replacement`, which must find it. */
async function patch(path: string, anchor: string, replacement: string): Promise<void> {
  const text = await readFile(path, 'utf8');
  expect(text, path).toContain(anchor);
  await writeFile(path, text.replace(anchor, replacement));
}

async function environment() {
  const work = await tempDir('plugsmith-shipped-scenarios-');
  return {
    dir: join(work, 'plugin'),
    env: { ...BLANK, PLUGSMITH_CONFIG_DIR: join(work, 'config') },
  };
}

function expectCaught(result: { code: number | null; stdout: string; stderr: string }): void {
  const output = result.stdout + result.stderr;
  expect(result.code, output).not.toBe(0);
  expect(output).toContain('a message is answered once with what the user said');
  // The second message of message-answered.json: its delivery's first attempt was refused.
  expect(output).toMatch(
    /✗ message "and again"[^\n]*\n\s+expectation: delivery \{"type":"AGENT_MESSAGE_RECEIVED","status":"2xx","retried":false\}[\s\S]*?observed:\s+HTTP 500/,
  );
}

test('TypeScript: a plugin failing the first attempt of every second message fails the shipped scenarios', async () => {
  const { dir, env } = await environment();
  await typescriptProject(dir, 'EVENT_HANDLER', env);
  // The compiled plugin (the manifest's dev command serves dist/).
  await patch(
    join(dir, 'dist/plugin.js'),
    'const earlier = replies.get(message.id);',
    `if (!seen.has(message.id)) {
            seen.add(message.id);
            if (seen.size % 2 === 0) throw new Error('fails the first attempt of every second message');
        }
        const earlier = replies.get(message.id);`,
  );
  await patch(
    join(dir, 'dist/plugin.js'),
    'const replies = new Map();',
    'const replies = new Map();\n    const seen = new Set();',
  );
  expectCaught(await runCli(['scenario', 'run', '--start'], { cwd: dir, env }));
});

test('Python: a plugin failing the first attempt of every second message fails the shipped scenarios', async () => {
  const { dir, env } = await environment();
  await pythonProject(dir, 'EVENT_HANDLER', env);
  await patch(
    join(dir, 'plugin/events.py'),
    '        message = data["message"]\n',
    `        message = data["message"]
        if message["id"] not in SEEN:
            SEEN.add(message["id"])
            if len(SEEN) % 2 == 0:
                raise RuntimeError("fails the first attempt of every second message")
`,
  );
  await patch(join(dir, 'plugin/events.py'), 'class Plugin:', 'SEEN = set()\n\n\nclass Plugin:');
  expectCaught(await runCli(['scenario', 'run', '--start'], { cwd: dir, env }));
});
