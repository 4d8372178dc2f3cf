import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, test } from 'vitest';
import { commands, groups } from '../../src/commands/registry.js';
import { main } from '../../src/main.js';
import type { Io } from '../../src/ui/io.js';
import { runCli } from '../kit/cli-process.js';
import { jsonFile, ORG, useCliEnv } from '../kit/cli-env.js';
import { deadUrl, server } from '../kit/index.js';

// One CLI that behaves the same everywhere: bare groups print help, every platform command takes
// --base-url and --messaging-url and honours them, --timeout bounds a silent server, and the
// exit codes follow the one table of docs/exit-codes.md.

const t = useCliEnv();

function bufferIo(): Io & { out(): string; err(): string } {
  let out = '';
  let err = '';
  const sink = (write: (s: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        write(String(chunk));
        done();
      },
    });
  return {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    interactive: false,
    out: () => out,
    err: () => err,
  };
}

/** Every group: each proper prefix of a command path that is not itself a command, and the root. */
const GROUPS = [
  ...new Set(
    commands.flatMap((c) => c.path.slice(0, -1).map((_, i) => c.path.slice(0, i + 1).join(' '))),
  ),
].filter((g) => !commands.some((c) => c.path.join(' ') === g));

/** Commands that do not talk to the platform (login only saves what it is given). */
const LOCAL = new Set([
  'init',
  'completion',
  'profiles list',
  'profiles use',
  'profiles remove',
  'emulator start',
  'emulator list',
  'emulator stop',
  'emulator exec',
  'login',
  // Serves the project's local emulator only (found like every command finds it); never --base-url.
  'mcp',
  // Replays on an emulator it starts itself, or the one --emulator names; never --base-url.
  'parity check',
  // Reads scenario files only: nothing runs.
  'scenario validate',
]);

describe('groups', () => {
  test('every group typed alone prints its help on stdout and succeeds; its description says what it does', async () => {
    expect(GROUPS).toEqual(
      expect.arrayContaining(['plugins', 'emulator', 'repos files', 'handlers', 'apps']),
    );
    for (const group of ['', ...GROUPS]) {
      const io = bufferIo();
      const words = group ? group.split(' ') : [];
      await expect(main(words, io), group).resolves.toBeUndefined();
      expect(io.out(), group).toContain(
        `Usage: plugsmith${group ? ` ${group}` : ''} [options] [command]`,
      );
      expect(io.err(), group).toBe('');
      if (group) {
        expect(groups[group], group).toBeTruthy();
        expect(io.out(), group).toContain(groups[group]);
      }
    }
    const io = bufferIo();
    await main(['--help'], io);
    for (const group of GROUPS)
      expect(io.out(), group).not.toContain(`${group.split(' ').at(-1)} commands`);
    expect(io.out()).toContain('Create, update, verify and delete plugins;');
  });

  test('as a process: exit 0 with help for a bare group, exit 2 for an unknown subcommand', async () => {
    const [bare, plugins, emulator, unknown] = await Promise.all([
      runCli([]),
      runCli(['plugins']),
      runCli(['emulator']),
      runCli(['plugins', 'nope']),
    ]);
    for (const run of [bare, plugins, emulator]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: plugsmith/);
      expect(run.stderr).not.toContain('outputHelp');
    }
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'nope'");
    const help = await runCli(['help', 'plugins']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: plugsmith plugins');
  });

  test('subcommand help shows the global options; trigger --help lists the event types', async () => {
    const io = bufferIo();
    await main(['plugins', 'list', '--help'], io);
    expect(io.out()).toMatch(/Global Options:[\s\S]*--profile <name>[\s\S]*--timeout <seconds>/);
    const trigger = bufferIo();
    await main(['trigger', '--help'], trigger);
    for (const type of [
      'WEBHOOK_CHALLENGE',
      'PLUGIN_INSTALLED',
      'AGENT_MESSAGE_RECEIVED',
      'REPOSITORY_FILE_REMOVED',
    ])
      expect(trigger.out()).toContain(type);
  });

  test('completion offers the event types after trigger, and the new install commands', async () => {
    const script = await runCli(['completion', 'bash']);
    expect(script.stdout).toMatch(
      /'trigger'\)\n\s+words='WEBHOOK_CHALLENGE PLUGIN_INSTALLED PLUGIN_UNINSTALLED AGENT_MESSAGE_RECEIVED REPOSITORY_FILE_ADDED REPOSITORY_FILE_REMOVED /,
    );
    for (const path of [
      'handlers add',
      'handlers list',
      'handlers remove',
      'apps add',
      'apps list',
      'apps remove',
    ])
      expect(script.stdout).toContain(`'${path}')`);
  });
});

describe('--base-url and --messaging-url', () => {
  let manifest: string;
  let exportFile: string;
  let upload: string;
  let scenario: string;
  beforeAll(async () => {
    scenario = await jsonFile(t.dir, 'consistency.scenario.json', {
      name: 'consistency',
      steps: [{ id: 'conv', conversation: { character: 'char_nova' } }],
    });
    manifest = await jsonFile(t.dir, 'plugsmith.json', {
      plugin: {
        name: 'consistency',
        type: 'APP',
        events: [],
        scopes: [],
        webhookUrl: 'http://127.0.0.1:3999/webhook',
      },
    });
    exportFile = join(t.dir, 'export.json');
    const exported = await t.cli(['emulator', 'export', exportFile, '--base-url', t.emu.url]);
    expect(exported.code, exported.stderr).toBe(0);
    upload = join(t.dir, 'upload.txt');
    await writeFile(upload, 'hello');
  });

  /** What each command needs besides its arguments to reach its first request. */
  const extra = (path: string): string[] => {
    const table: Record<string, string[]> = {
      'plugins create': ['--name', 'n', '--type', 'APP', '--org', ORG],
      'actions create': ['--name', 'a'],
      'events create': ['--name', 'e'],
      'repos create': ['--name', 'r', '--org', ORG],
      'tokens create': ['--name', 't'],
      'plugins update': ['--name', 'n'],
      'actions update': ['--name', 'n'],
      'events update': ['--name', 'n'],
      'plugins list': ['--org', ORG],
      'repos list': ['--org', ORG],
      'messages send': ['hi'],
      'files upload': ['--parent-type', 'ORG', '--parent-id', ORG],
      'files list': ['--parent-type', 'ORG', '--parent-id', ORG],
      'conversations create': ['--character', 'char_nova'],
      chat: ['char_nova', '-m', 'hi'],
      deploy: ['--manifest', manifest, '--org', ORG],
      dev: ['--manifest', manifest],
      pull: ['--plugin', 'plg_x', '--out', join(t.dir, 'pulled.json')],
      trigger: ['--plugin', 'plg_x'],
      check: ['--plugin', 'plg_x'],
      'providers add': ['--plugin', 'plg_x'],
      'handlers add': ['--plugin', 'plg_x'],
      'apps add': ['--plugin', 'plg_x'],
      'logs redeliver': ['--status', 'failed', '--yes'],
      'scenario run': [scenario, '--plugin', 'plg_x'],
      'scenario record': ['-o', join(t.dir, 'recorded.json'), '--plugin', 'plg_x'],
      'parity record': ['-o', join(t.dir, 'parity.json'), '--org', ORG],
    };
    const yes = /(delete|remove)$|^emulator (import|reset)$/.test(path) ? ['--yes'] : [];
    return [...(table[path] ?? []), ...yes];
  };
  /** Values for the command's arguments. */
  const argsOf = (path: string, args: Array<string | { name: string }>): string[] =>
    args
      .map((a) => (typeof a === 'string' ? a : a.name))
      .filter((a) => a.startsWith('<'))
      .map((a) => {
        if (path === 'files upload') return upload;
        if (path === 'emulator import') return exportFile;
        if (path === 'emulator export') return join(t.dir, 'exported.json');
        if (path === 'trigger') return 'WEBHOOK_CHALLENGE';
        if (path === 'files status') return a === '<fileId>' ? 'file_x' : 'UPLOADED';
        if (path === 'completion') return 'bash';
        return `${a.slice(1, -1)}_x`;
      });

  test('every command that talks to the platform declares both flags', () => {
    for (const spec of commands) {
      const path = spec.path.join(' ');
      if (LOCAL.has(path)) continue;
      const flags = (spec.options ?? []).map((o) => o.flags);
      expect(flags, path).toContain('--base-url <url>');
      if (!path.startsWith('emulator ')) expect(flags, path).toContain('--messaging-url <url>');
    }
  });

  test('every platform command goes to the URL of --base-url (here a closed port), whatever the environment says', async () => {
    const url = await deadUrl();
    const platform = commands.filter((c) => !LOCAL.has(c.path.join(' ')));
    expect(platform.length).toBeGreaterThan(50);
    const failures: string[] = [];
    // Sixteen at a time (in this process, sharing one environment): a read is retried twice on a
    // refused connection, and those backoffs are most of each run.
    for (let i = 0; i < platform.length; i += 16) {
      await Promise.all(
        platform.slice(i, i + 16).map(async (spec) => {
          const path = spec.path.join(' ');
          const messagingFlag = path.startsWith('emulator ') ? [] : ['--messaging-url', url];
          const argv = [
            ...spec.path,
            ...argsOf(path, spec.args ?? []),
            ...extra(path),
            '--base-url',
            url,
            ...messagingFlag,
          ];
          // The environment points at the live emulator: only the flag can send the command to the closed port.
          const run = await t.cli(argv);
          // doctor and files upload report per check or per file, on stdout.
          if (run.code !== 7 || !(run.stderr + run.stdout).includes(url))
            failures.push(
              `${argv.join(' ')} -> exit ${run.code}: ${run.stderr.trim().split('\n')[0]}`,
            );
        }),
      );
    }
    expect(failures).toEqual([]);
  });

  test("logs redeliver honours --base-url (it used to go to the profile's URL)", async () => {
    const run = await t.cli(['logs', 'redeliver', 'dlv_missing', '--base-url', t.emu.url], {
      PLUGSMITH_BASE_URL: 'http://127.0.0.1:1',
    });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('dlv_missing');
  });
});

describe('--timeout', () => {
  let url: string;
  beforeAll(async () => {
    // Accepts every request and never answers.
    url = (await server(() => undefined)).url;
  });

  test('a server that accepts and never answers fails with a timeout naming the URL, exit 7, after one visible wait', async () => {
    const run = await t.cli(['plugins', 'get', 'plg_x', '--base-url', url, '--timeout', '3']);
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toContain(`waiting for GET ${url}/api/plugins/plg_x`);
    expect(run.stderr).toContain('gives up after 3s');
    expect(run.stderr).toContain(`GET ${url}/api/plugins/plg_x failed: timed out`);
    expect(run.stderr).toContain('--timeout');
    // Asked once: a timed-out request is not retried.
    expect(run.stderr.match(/waiting for/g)).toHaveLength(1);
  });

  test('the emulator admin commands wait --timeout too', async () => {
    const run = await t.cli([
      'emulator',
      'export',
      join(t.dir, 'never.json'),
      '--base-url',
      url,
      '--timeout',
      '1',
    ]);
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toContain(`GET ${url}/_emulator/export failed: timed out`);
  });

  test('PLUGSMITH_TIMEOUT does the same; a bad value is a usage error', async () => {
    const [fromEnv, bad, badFlag] = await Promise.all([
      t.cli(['repos', 'get', 'repo_docs', '--base-url', url], { PLUGSMITH_TIMEOUT: '1' }),
      t.cli(['repos', 'get', 'repo_docs', '--base-url', url], { PLUGSMITH_TIMEOUT: 'soon' }),
      t.cli(['repos', 'get', 'repo_docs', '--timeout', '0']),
    ]);
    expect(fromEnv.code, fromEnv.stderr).toBe(7);
    expect(fromEnv.stderr).toContain('timed out');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PLUGSMITH_TIMEOUT');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--timeout');
  });
});

describe('manifest errors', () => {
  test('every problem at once, each with its path', async () => {
    const file = await jsonFile(t.dir, 'many.json', {
      plugin: { name: 'x', type: 'NOPE', events: [], scopes: [], colour: 'red' },
      actions: [{ name: 'a b' }, { name: 'ok' }, { name: 'ok' }],
    });
    const run = await t.cli(['deploy', '--dry-run', '--manifest', file]);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/has \d+ problems:/);
    expect(run.stderr).toContain('plugin.type: must be one of');
    expect(run.stderr).toContain('plugin.colour: is not a manifest field');
    expect(run.stderr).toContain('actions[0].name: may hold only');
  });

  test('duplicates and unreadable schema files are reported together', async () => {
    const file = await jsonFile(t.dir, 'dups.json', {
      plugin: { name: 'x', type: 'APP', events: [], scopes: [] },
      actions: [{ name: 'ok', argsSchema: { $ref: './missing-args.json' } }, { name: 'ok' }],
    });
    const run = await t.cli(['deploy', '--dry-run', '--manifest', file]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('has 2 problems');
    expect(run.stderr).toContain('actions[1].name: duplicate name "ok"');
    expect(run.stderr).toContain('actions[0].argsSchema.$ref: cannot read');
  });

  test('schema errors and the later checks (webhook URL, duplicates, schema files) come in one round', async () => {
    const file = await jsonFile(t.dir, 'one-round.json', {
      plugin: { name: 'x', type: 'APP', events: [], scopes: [], tags: [5], webhookUrl: 'ftp://x' },
      actions: [
        { name: 'ok', argsSchema: { $ref: './missing-args.json' } },
        { name: 'ok' },
        { name: 'bad name', returnSchema: 7 },
      ],
    });
    const run = await t.cli(['deploy', '--dry-run', '--manifest', file]);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('has 6 problems');
    expect(run.stderr).toContain('actions[2].returnSchema: must be object');
    expect(run.stderr).toContain('plugin.tags[0]: must be string');
    expect(run.stderr).toContain('plugin.webhookUrl: "ftp://x" is not an http(s) URL');
    expect(run.stderr).toContain('actions[1].name: duplicate name "ok"');
    expect(run.stderr).toContain('actions[0].argsSchema.$ref: cannot read');
    expect(run.stderr).toContain('actions[2].name: may hold only');
    // A value the schema refused is not checked again (one problem per path).
    expect(run.stderr.match(/actions\[2\]/g)?.length).toBe(2);
  });

  test('a JSON syntax error names its line and column', async () => {
    const file = join(t.dir, 'broken.json');
    await writeFile(file, '{\n  "plugin": {\n    "name": "x",\n  }\n}\n');
    const run = await t.cli(['deploy', '--dry-run', '--manifest', file]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('is not valid JSON: line 4, column 3');
  });
});

describe('exit codes follow one table', () => {
  test('a missing profile, file or instance is 4 (not found) wherever it is named', async () => {
    const [flagProfile, useProfile, upload, readJson, data] = await Promise.all([
      t.cli(['plugins', 'list', '--profile', 'nope']),
      t.cli(['profiles', 'use', 'nope']),
      t.cli([
        'files',
        'upload',
        join(t.dir, 'absent.txt'),
        '--parent-type',
        'ORG',
        '--parent-id',
        ORG,
      ]),
      t.cli([
        'actions',
        'create',
        'plg_x',
        '--name',
        'a',
        '--args-schema',
        join(t.dir, 'absent.json'),
      ]),
      t.cli([
        'trigger',
        'PLUGIN_INSTALLED',
        '--plugin',
        'plg_x',
        '--data',
        `@${join(t.dir, 'absent.json')}`,
      ]),
    ]);
    expect(flagProfile.code, flagProfile.stderr).toBe(4);
    expect(useProfile.code, useProfile.stderr).toBe(4);
    expect(upload.code, upload.stderr).toBe(4);
    expect(readJson.code, readJson.stderr).toBe(4);
    expect(data.code, data.stderr).toBe(4);
  });
});
