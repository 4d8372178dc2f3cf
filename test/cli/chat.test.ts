import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, type CliResult } from '../kit/cli-process.js';
import { useCliEnv } from '../kit/cli-env.js';

const t = useCliEnv();

/** Runs `plugsmith chat …` with stdin read from a file (not a terminal), as a shell's `< file` would. */
async function chatFromFile(
  args: string[],
  lines: string,
  extra: Record<string, string> = {},
): Promise<CliResult> {
  const path = join(t.dir, `input-${Math.random().toString(36).slice(2)}.txt`);
  await writeFile(path, lines);
  const input = await open(path);
  try {
    const child = spawn(process.execPath, [CLI, 'chat', ...args], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1', ...t.env, ...extra },
      stdio: [input.fd, 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    return { code, signal, stdout, stderr };
  } finally {
    await input.close();
  }
}

/** The conversation's messages as the API lists them: [sender, content]. */
async function listed(conversationId: string): Promise<string[][]> {
  const messages = await t.json(['messages', 'list', conversationId, '--all']);
  return messages.map((m: { sender: string; content: string }) => [m.sender, m.content]);
}

describe.concurrent('plugsmith chat without a terminal', () => {
  test('each line of a file is sent, and each complete reply printed on its own line', async () => {
    const result = await chatFromFile(['char_nova'], 'hello\n\nwhat is this?\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Hi there!\nTell me more.\n');
    const conversationId = /conversation (conv_\w+) with char_nova/.exec(result.stderr)![1];
    expect(await listed(conversationId)).toEqual([
      ['USER', 'hello'],
      ['CHARACTER', 'Hi there!'],
      ['USER', 'what is this?'],
      ['CHARACTER', 'Tell me more.'],
    ]);
  });

  test('--json: one JSON line per update, every packet; the deltas add up to the stored reply', async () => {
    const result = await chatFromFile(['char_nova', '--json'], 'hello\nwhat is this?\n');
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: 'CONVERSATION_STARTED',
      conversation: { characterId: 'char_nova' },
    });
    const conversationId = lines[0].conversation.id;
    const stored = await t.json(['messages', 'list', conversationId]);
    expect(stored).toHaveLength(4);

    // USER_MESSAGE_SENT, its reply's packets, then the next line's.
    const types = lines.slice(1).map((l) => l.type);
    expect(types[0]).toBe('USER_MESSAGE_SENT');
    const second = types.indexOf('USER_MESSAGE_SENT', 1);
    expect(second).toBeGreaterThan(1);
    for (const [start, end, user, reply] of [
      [1, second + 1, stored[0], stored[1]],
      [second + 1, lines.length, stored[2], stored[3]],
    ]) {
      const turn = lines.slice(start, end);
      expect(turn[0]).toEqual({ type: 'USER_MESSAGE_SENT', message: user });
      const packets = turn.slice(1);
      expect(packets.length).toBeGreaterThanOrEqual(2);
      for (const p of packets)
        expect(p).toMatchObject({
          type: 'CHARACTER_MESSAGE_SENT',
          message: { id: reply.id, sender: 'CHARACTER' },
        });
      expect(packets.map((p: { contentDelta: string }) => p.contentDelta).join('')).toBe(
        reply.content,
      );
      expect(packets.at(-1).message).toMatchObject({ content: reply.content, isStreaming: false });
      expect(
        packets
          .slice(0, -1)
          .every((p: { message: { isStreaming: boolean } }) => p.message.isStreaming),
      ).toBe(true);
    }
  });

  test('--message sends one message and exits when the reply is complete; --conversation continues', async () => {
    const first = await t.cli(['chat', 'char_nova', '--message', 'hello']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('Hi there!\n');
    const conversationId = /conversation (conv_\w+)/.exec(first.stderr)![1];

    const more = await t.cli([
      'chat',
      '--conversation',
      conversationId,
      '-m',
      'and then?',
      '--json',
    ]);
    expect(more.code, more.stderr).toBe(0);
    const lines = more.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: 'CONVERSATION_STARTED',
      conversation: { id: conversationId },
    });
    expect(lines.at(-1)).toMatchObject({
      type: 'CHARACTER_MESSAGE_SENT',
      message: { content: 'Tell me more.', isStreaming: false },
    });
    expect(await listed(conversationId)).toEqual([
      ['USER', 'hello'],
      ['CHARACTER', 'Hi there!'],
      ['USER', 'and then?'],
      ['CHARACTER', 'Tell me more.'],
    ]);
    // --message wins over stdin, which is not read.
    const quiet = await t.cli(
      ['chat', 'char_nova', '-m', 'hello', '--quiet'],
      {},
      'ignored line\n',
    );
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, 'Hi there!\n', '']);
  });

  test('usage and errors: a missing character id (2), an unknown one (4), a refused key (3), an empty --message (2)', async () => {
    const [missing, unknown, refused, empty] = await Promise.all([
      chatFromFile([], 'hello\n'),
      t.cli(['chat', 'char_nobody', '-m', 'hello']),
      t.cli(['chat', 'char_nova', '-m', 'hello'], { PLUGSMITH_API_KEY: 'psk_wrong' }),
      t.cli(['chat', 'char_nova', '-m', ' ']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'missing characterId: pass it, `plugsmith chat <characterId>`',
    );
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain(
      "no character char_nobody in this API key's org: `plugsmith chat --list-characters` lists them",
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('run `plugsmith login`');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--message is empty');
  });

  test('--conversation naming no conversation is exit 4 with the cure, without a terminal as in the REPL', async () => {
    const gone = await t.cli(['chat', '--conversation', 'conv_nope', '-m', 'hello']);
    expect(gone.code, gone.stderr).toBe(4);
    expect(gone.stderr).toContain(
      'no conversation conv_nope for this API key: leave out --conversation to start a new one',
    );
  });

  test('--list-characters lists the org’s characters (table and --json)', async () => {
    const [human, json] = await Promise.all([
      t.cli(['chat', '--list-characters']),
      t.json(['chat', '--list-characters', '--org', 'org_dev']),
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+ENGINE\s+AGENT\n/);
    expect(human.stdout).toMatch(/^char_nova\s+Nova\s/m);
    expect(json.map((c: { id: string }) => c.id)).toEqual(['char_nova']);
  });

  test('--help lists every option', async () => {
    const help = await t.cli(['chat', '--help']);
    for (const flag of [
      '[characterId]',
      '--conversation <conversationId>',
      '-m, --message <text>',
      '--list-characters',
      '--org <orgId>',
      '--base-url <url>',
      '--messaging-url <url>',
    ]) {
      expect(help.stdout).toContain(flag);
    }
  });
});

describe('ink is loaded only by the chat REPL', () => {
  const dist = resolve(import.meta.dirname, '../../dist');
  const importsOf = (code: string) => {
    const found = { static: [] as string[], dynamic: [] as string[] };
    for (const m of code.matchAll(
      /(?:^|[\s;])(?:import|export)\s*(?:[^'"();]*?\sfrom\s*)?["']([^"']+)["']/g,
    ))
      found.static.push(m[1]);
    for (const m of code.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) found.dynamic.push(m[1]);
    return found;
  };

  /** Every chunk `entry` loads, following static imports (and dynamic ones, unless `skip` says no). */
  async function closure(
    entry: string,
    followDynamic: (file: string) => boolean,
  ): Promise<{ files: Set<string>; packages: Set<string> }> {
    const files = new Set<string>();
    const packages = new Set<string>();
    const queue = [entry];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (files.has(file)) continue;
      files.add(file);
      const { static: fixed, dynamic } = importsOf(await readFile(join(dist, file), 'utf8'));
      for (const spec of [...fixed, ...dynamic.filter((d) => followDynamic(d))]) {
        if (spec.startsWith('./')) queue.push(spec.slice(2));
        else packages.add(spec.split('/')[0]);
      }
    }
    return { files, packages };
  }

  test('dist/cli.js and every chunk other commands load never import ink or react; the chat app chunk does', async () => {
    const cli = await readFile(join(dist, 'cli.js'), 'utf8');
    expect(cli).not.toMatch(/from\s*["'](ink|react)["']/);
    const everythingButTheApp = await closure('cli.js', (d) => !/run-chat-app/.test(d));
    expect(everythingButTheApp.files.size).toBeGreaterThan(10);
    expect([...everythingButTheApp.packages].filter((p) => /^(ink|ink-.*|react)$/.test(p))).toEqual(
      [],
    );
    // The chat command itself is among them (its line mode runs without ink).
    expect([...everythingButTheApp.files].some((f) => /^chat-[\w-]+\.js$/.test(f))).toBe(true);

    const app = [...(await closure('cli.js', () => true)).files].find((f) =>
      /^run-chat-app-[\w-]+\.js$/.test(f),
    );
    expect(app).toBeDefined();
    expect((await closure(app!, () => true)).packages).toContain('ink');
  });
});
