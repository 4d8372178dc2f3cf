import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { useCliEnv } from '../kit/cli-env.js';
import { stateFiles } from '../kit/emulator-state.js';
import { until } from '../kit/index.js';

// Every local user can read every process's arguments (/proc/PID/cmdline, `ps`): a single-use
// login code or an API key there can be taken by another process before the browser (or the
// emulator) uses it. --open goes through a private redirect page; secrets of `emulator start`
// come from the environment or a file.
const t = useCliEnv();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-argv-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A BROWSER command that writes down every argument it was given, one a line. */
async function fakeBrowser(
  name: string,
): Promise<{ command: string; argv: () => Promise<string[]> }> {
  const recorded = join(dir, `${name}.argv`);
  const command = join(dir, `${name}.sh`);
  await writeFile(
    command,
    `#!/bin/sh\nfor a in "$0" "$@"; do printf '%s\\n' "$a"; done > '${recorded}.tmp' && mv '${recorded}.tmp' '${recorded}'\n`,
    { mode: 0o755 },
  );
  return {
    command,
    argv: () =>
      until(
        'the browser to run',
        async () => (await readFile(recorded, 'utf8')).trimEnd().split('\n'),
        {
          timeoutMs: 30_000,
        },
      ),
  };
}

/** What the browser was given must be a 0600 page in a 0700 folder that redirects to `link`, and hold no part of the code. */
async function expectPrivateRedirect(argv: string[], link: string): Promise<void> {
  const code = /#login=(.+)$/.exec(link)?.[1];
  expect(code).toBeTruthy();
  expect(argv.join(' ')).not.toContain(code!);
  expect(argv).toHaveLength(2);
  expect(argv[1]).toMatch(/^file:\/\//);
  const page = fileURLToPath(argv[1]);
  expect(((await stat(page)).mode & 0o777).toString(8)).toBe('600');
  expect(((await stat(dirname(page))).mode & 0o777).toString(8)).toBe('700');
  const html = await readFile(page, 'utf8');
  expect(html).toContain(`<meta http-equiv="refresh" content="0;url=${link}">`);
  expect(html).toContain(`location.replace(${JSON.stringify(link)})`);
}

describe('--open keeps the login code out of every argv', () => {
  it('emulator dashboard --open runs the browser with a private page that redirects to the link', async () => {
    const browser = await fakeBrowser('dashboard');
    const result = await t.cli(['emulator', 'dashboard', '--open', '--base-url', t.emu.url], {
      BROWSER: browser.command,
    });
    expect(result.code, result.stderr).toBe(0);
    const link = /Dashboard: (\S+)/.exec(result.stdout)?.[1] ?? '';
    await expectPrivateRedirect(await browser.argv(), link);
  });

  it('emulator start --open does the same', async () => {
    const browser = await fakeBrowser('start');
    const configDir = await tempConfigDir();
    const start = spawnCli(
      ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory', '--open'],
      { env: { PLUGSMITH_CONFIG_DIR: configDir, BROWSER: browser.command } },
    );
    const link = /Dashboard: (\S+)/.exec(await start.lineMatching(/Dashboard: \S+/))![1];
    await expectPrivateRedirect(await browser.argv(), link);
    await start.stop();
  });
});

describe('emulator start takes its secrets from a file or the environment', () => {
  let llm: Server;
  const authorizations: Array<string | undefined> = [];
  beforeAll(async () => {
    llm = createServer((req, res) => {
      authorizations.push(req.headers.authorization);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] })}\n\ndata: [DONE]\n\n`,
        );
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise((r) => llm.close(r)));

  /** Starts the emulator with an LLM character, has it reply once, and returns the Authorization the LLM got. */
  async function llmAuthorization(
    args: string[],
    extraEnv: Record<string, string>,
  ): Promise<string | undefined> {
    const seed = join(dir, 'llm-seed.json');
    await writeFile(
      seed,
      JSON.stringify({
        users: [{ id: 'u_a', name: 'Ann' }],
        orgs: [{ id: 'org_a', name: 'A', members: [{ userId: 'u_a', role: 'OWNER' }] }],
        tokens: [{ userId: 'u_a', token: 'pst_argv_user' }],
        characters: [
          {
            id: 'char_llm',
            orgId: 'org_a',
            agentId: null,
            name: 'Lena',
            persona: 'terse',
            engine: 'openai',
          },
        ],
        apiKeys: [{ key: 'psk_argv_key', orgId: 'org_a' }],
      }),
    );
    const configDir = await tempConfigDir();
    const { port } = llm.address() as AddressInfo;
    const start = spawnCli(
      [
        'emulator',
        'start',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--in-memory',
        '--seed',
        seed,
        '--llm-base-url',
        `http://127.0.0.1:${port}/v1`,
        '--llm-model',
        'tiny',
        ...args,
      ],
      { env: { PLUGSMITH_CONFIG_DIR: configDir, PLUGSMITH_LLM_API_KEY: '', ...extraEnv } },
    );
    await start.nextLine();
    const [stateFile] = await stateFiles(configDir);
    const state = JSON.parse(await readFile(stateFile, 'utf8'));
    const post = async (path: string, body: unknown) => {
      const res = await request(`${state.messagingUrl}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer psk_argv_key', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.body.json()) as { data: { id: string } };
      expect(res.statusCode, JSON.stringify(json)).toBe(201);
      return json.data;
    };
    const before = authorizations.length;
    const conversation = await post('/conversations', { characterId: 'char_llm' });
    await post(`/conversations/${conversation.id}/messages`, { content: 'hi' });
    await until('the LLM request', () => authorizations.length > before, 20_000);
    await start.stop();
    return authorizations[before];
  }

  it('--llm-api-key-file reads the key from a file (its first line)', async () => {
    const keyFile = join(dir, 'llm-key');
    await writeFile(keyFile, 'sk-from-file\n', { mode: 0o600 });
    expect(await llmAuthorization(['--llm-api-key-file', keyFile], {})).toBe('Bearer sk-from-file');
  });

  it('PLUGSMITH_LLM_API_KEY gives the key without any flag', async () => {
    expect(await llmAuthorization([], { PLUGSMITH_LLM_API_KEY: 'sk-from-env' })).toBe(
      'Bearer sk-from-env',
    );
  });

  it('--help says the secret flags show in ps and names the environment variables and files', async () => {
    const help = await t.cli(['emulator', 'start', '--help']);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('--llm-api-key-file <file>');
    expect(text).toContain('--s3-secret-key-file <file>');
    expect(text).toMatch(
      /--llm-api-key <key> API key for the LLM backend; a flag shows in `ps` to every local user: prefer env PLUGSMITH_LLM_API_KEY or --llm-api-key-file/,
    );
    expect(text).toMatch(
      /--s3-secret-key <key> S3 secret key \(default minioadmin\); a flag shows in `ps` to every local user: prefer env PLUGSMITH_S3_SECRET_KEY or --s3-secret-key-file/,
    );
  });

  it('an unreadable key file is a usage error naming the flag and the file', async () => {
    const result = await t.cli([
      'emulator',
      'start',
      '--in-memory',
      '--port',
      '0',
      '--messaging-port',
      '0',
      '--s3-secret-key-file',
      join(dir, 'missing'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--s3-secret-key-file ${join(dir, 'missing')}: cannot read it (ENOENT)`,
    );
  });
});
