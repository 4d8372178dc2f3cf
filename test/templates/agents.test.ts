import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, onTestFinished, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';

// What a coding agent finds in a project `plugsmith init` wrote (issue 45): AGENTS.md with the loop
// and where the plugin's output is, CLAUDE.md pointing at it, and the project MCP configurations of
// Claude Code, VS Code and Cursor; the one Claude Code reads starts a real `plugsmith mcp`.

const ROOT = resolve(import.meta.dirname, '../..');
const BLANK = {
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_TOKEN: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
};

interface Server {
  type?: string;
  command: string;
  args: string[];
}

async function initProject(lang: 'typescript' | 'python') {
  const work = await tempDir('plugsmith-agents-');
  const dir = join(work, 'plugin');
  const env = { ...BLANK, PLUGSMITH_CONFIG_DIR: join(work, 'config') };
  const init = await runCli(['init', dir, '--type', 'EVENT_HANDLER', '--lang', lang, '--yes'], {
    env,
  });
  expect(init.code, init.stderr).toBe(0);
  return { dir, env };
}

async function json(path: string): Promise<Record<string, Record<string, Server>>> {
  return JSON.parse(await readFile(path, 'utf8'));
}

describe.each(['typescript', 'python'] as const)('a %s project', (lang) => {
  test('has AGENTS.md with the loop, CLAUDE.md importing it, and MCP configurations for three agents', async () => {
    const { dir } = await initProject(lang);
    const agents = await readFile(join(dir, 'AGENTS.md'), 'utf8');
    const cli = lang === 'python' ? 'plugsmith' : 'npx plugsmith';
    for (const command of [
      'dev',
      'trigger AGENT_MESSAGE_RECEIVED',
      'scenario run',
      'check',
      'logs <deliveryId>',
    ])
      expect(agents).toContain(`${cli} ${command}`);
    expect(agents).toContain('get_delivery');
    expect(agents).toContain('dashboard');
    expect(agents).not.toMatch(/\{\{\w+\}\}/);
    expect(await readFile(join(dir, 'CLAUDE.md'), 'utf8')).toBe('@AGENTS.md\n');

    const expected =
      lang === 'python'
        ? { command: 'plugsmith', args: ['mcp'] }
        : { command: 'npx', args: ['--no', 'plugsmith', 'mcp'] };
    expect((await json(join(dir, '.mcp.json'))).mcpServers.plugsmith).toEqual({
      type: 'stdio',
      ...expected,
    });
    expect((await json(join(dir, '.vscode/mcp.json'))).servers.plugsmith).toEqual({
      type: 'stdio',
      ...expected,
    });
    expect((await json(join(dir, '.cursor/mcp.json'))).mcpServers.plugsmith).toEqual(expected);
  });
});

test("the TypeScript project's .mcp.json command starts plugsmith mcp, which answers initialize", async () => {
  const { dir, env } = await initProject('typescript');
  // As `npm install` leaves the project's own plugsmith (a devDependency): the package and its bin.
  await mkdir(join(dir, 'node_modules/.bin'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules/plugsmith'), 'dir');
  await symlink('../plugsmith/bin/plugsmith.js', join(dir, 'node_modules/.bin/plugsmith'));
  const server = (await json(join(dir, '.mcp.json'))).mcpServers.plugsmith;

  const child = spawn(server.command, server.args, {
    cwd: dir,
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;
  });
  const lines = createInterface({ input: child.stdout });
  const first = new Promise<string>((done, fail) => {
    lines.once('line', done);
    child.once('exit', (code) => fail(new Error(`exited (${code}) before answering:\n${stderr}`)));
  });
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'agents-test', version: '1' },
      },
    })}\n`,
  );
  const answer = JSON.parse(await first) as {
    id: number;
    result?: { serverInfo: { name: string }; capabilities: { tools?: unknown } };
  };
  expect(answer.id).toBe(1);
  expect(answer.result?.serverInfo.name, stderr).toBe('plugsmith');
  expect(answer.result?.capabilities.tools).toBeDefined();
});
