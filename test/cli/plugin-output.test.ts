import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { stateFileOf } from '../kit/emulator-state.js';
import { freePort } from '../kit/ports.js';
import { tempDir, until } from '../kit/index.js';
import { makeReplyThrow, pythonProject, typescriptProject } from '../kit/project.js';

// Issue 43's proof, person and agent side: a generated project whose plugin throws on one message, run under
// `plugsmith dev`; a chat message makes it throw; `plugsmith logs <id> --json` and GET /_emulator/deliveries/:id
// both show the plugin's error message and a line of its stack beside the attempt, without dev's terminal.

interface Line {
  at: string;
  stream: string;
  text: string;
}

const LANGUAGES = [
  {
    language: 'TypeScript',
    async project(dir: string, env: Record<string, string>) {
      await typescriptProject(dir, 'EVENT_HANDLER', env);
      await makeReplyThrow(dir, 'typescript');
    },
    stackLine: /^ {4}at replyTo \(.*dist\/reply\.js:\d+:\d+\)$/,
  },
  {
    language: 'Python',
    async project(dir: string, env: Record<string, string>) {
      await pythonProject(dir, 'EVENT_HANDLER', env);
      await makeReplyThrow(dir, 'python');
    },
    stackLine: /^ {2}File ".*plugin\/reply\.py", line \d+, in reply_to$/,
  },
];

describe.each(LANGUAGES)(
  'a generated $language project under plugsmith dev',
  ({ project, stackLine }) => {
    test('the error and its stack of a failed chat message are beside the attempt in `logs <id> --json` and the admin API', async () => {
      const work = await tempDir('plugsmith-output-e2e-');
      const configDir = join(work, 'config');
      const env = {
        PLUGSMITH_CONFIG_DIR: configDir,
        PLUGSMITH_BASE_URL: '',
        PLUGSMITH_TOKEN: '',
        PLUGSMITH_MESSAGING_URL: '',
        PLUGSMITH_API_KEY: '',
      };
      const dir = join(work, 'plugin');
      await project(dir, env);
      const port = await freePort();
      // As a CI job runs it: --json, deliveries as JSON lines on stdout, the plugin's own lines on stderr.
      const dev = spawnCli(
        [
          '--json',
          'dev',
          '--emulator-port',
          '0',
          '--messaging-port',
          '0',
          '--plugin-port',
          String(port),
        ],
        { cwd: dir, env },
      );
      onTestFinished(async () => {
        await dev.stop('SIGTERM');
      });
      const installed = await dev.lineMatching(/"PLUGIN_INSTALLED"/);
      expect(JSON.parse(installed).delivery).toMatchObject({ type: 'PLUGIN_INSTALLED' });
      const state = JSON.parse(await readFile(stateFileOf(configDir, dir), 'utf8'));
      const adminHeaders = { 'x-plugsmith-admin': state.adminToken };
      const adminGet = async (path: string) => {
        const answer = await fetch(`${state.url}${path}`, { headers: adminHeaders });
        expect(answer.status, path).toBe(200);
        return ((await answer.json()) as { data: any }).data;
      };

      // A person writes to the character the plugin is installed on.
      const [character] = await adminGet('/_emulator/characters');
      const messaging = {
        authorization: `Bearer ${state.apiKey}`,
        'content-type': 'application/json',
      };
      const conversation = await fetch(`${state.messagingUrl}/conversations`, {
        method: 'POST',
        headers: messaging,
        body: JSON.stringify({ characterId: character.id }),
      }).then((r) => r.json() as Promise<{ data: { id: string } }>);
      const sent = await fetch(
        `${state.messagingUrl}/conversations/${conversation.data.id}/messages`,
        {
          method: 'POST',
          headers: messaging,
          body: JSON.stringify({ content: 'please go boom' }),
        },
      );
      expect(sent.status).toBeLessThan(300);

      const failed = await until('the failed delivery with its error linked', async () => {
        const list = await adminGet('/_emulator/deliveries?type=AGENT_MESSAGE_RECEIVED');
        const delivery = list.find((d: any) => d.attempts[0]?.responseStatus === 500);
        if (!delivery) return undefined;
        const read = await adminGet(`/_emulator/deliveries/${delivery.id}`);
        const lines: Line[] = read.attempts[0].pluginOutput ?? [];
        return lines.some((l) => stackLine.test(l.text)) ? read : undefined;
      });
      const attempt = failed.attempts[0];
      const texts = (attempt.pluginOutput as Line[]).map((l) => l.text);
      expect(texts.join('\n')).toContain(`cannot reply to`);
      expect(texts).toContainEqual(
        expect.stringContaining(
          `AGENT_MESSAGE_RECEIVED ${failed.eventId} failed (webhook-id "${failed.eventId}")`,
        ),
      );
      expect(texts.some((t) => stackLine.test(t))).toBe(true);
      expect(
        attempt.pluginOutput.every((l: Line) => l.stream === 'stderr' || l.stream === 'stdout'),
      ).toBe(true);

      // The CLI shows the same lines under the attempt: --json for scripts and agents, text for people.
      const logs = await runCli(['logs', failed.id, '--json'], { cwd: dir, env });
      expect(logs.code, logs.stderr).toBe(0);
      const shown = JSON.parse(logs.stdout);
      expect(shown.attempts[0].pluginOutput.map((l: Line) => l.text)).toEqual(
        expect.arrayContaining(
          texts.filter((t) => stackLine.test(t) || t.includes('cannot reply to')),
        ),
      );
      const text = await runCli(['logs', failed.id], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/attempt 1 .* HTTP 500/);
      expect(text.stdout).toMatch(/plugin output \(\d+ lines?\):/);
      expect(text.stdout).toContain('cannot reply to');
      // dev --json showed the same stack line on stderr, marked as the plugin's; its stdout is JSON alone.
      const stackShown = new RegExp(`^plugin  ${stackLine.source.slice(1)}`, 'm');
      await dev.stderrShows(stackShown);
      expect(dev.stdoutLines().length).toBeGreaterThan(1);
      for (const line of dev.stdoutLines()) expect(() => JSON.parse(line), line).not.toThrow();
      await dev.stop('SIGTERM');
    });
  },
);
