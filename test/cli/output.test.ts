import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { beforeAll, describe, expect, test } from 'vitest';
import { CLI } from '../kit/cli-process.js';
import { ORG, OWNER_TOKEN, useCliEnv } from '../kit/cli-env.js';
import { deadUrl as refusedUrl, json, receiver } from '../kit/index.js';

const t = useCliEnv();
let deadUrl: string;
let brokenUrl: string;
beforeAll(async () => {
  // A port that refuses connections: listen, note it, close.
  deadUrl = await refusedUrl();
  // A platform that fails every request with a 500.
  brokenUrl = (
    await receiver((_req, res) =>
      json(res, 500, { ok: false, error: { message: 'Something broke', error: 'SERVER_ERROR' } }),
    )
  ).url;
  // Five plugins to page through.
  for (let i = 1; i <= 5; i++)
    await t.api.plugins.createInOrg(ORG, { name: `Paged ${i}`, type: 'APP', tags: ['paged'] });
});

/** Runs the CLI in a pseudo-terminal (util-linux `script`); returns everything it drew. */
async function onTerminal(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; output: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
  const full: Record<string, string | undefined> = {
    ...process.env,
    ...t.env,
    TERM: 'xterm-256color',
    ...env,
  };
  for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k];
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: full as Record<string, string>,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stdin.end();
  const [code] = (await once(child, 'close')) as [number];
  return { code, output };
}

describe.concurrent('output, exit codes and the query flags', { timeout: 120_000 }, () => {
  test('exit codes: 7 network, 3 refused token, 1 server error, 2 usage, 4 not found — with what to do next', async () => {
    const [
      network,
      refused,
      server,
      unknownOption,
      badLimit,
      badFilter,
      badOrder,
      unknownCommand,
      notFound,
    ] = await Promise.all([
      t.cli(['plugins', 'list', '--org', ORG], { PLUGSMITH_BASE_URL: deadUrl }),
      t.cli(['plugins', 'list', '--org', ORG], { PLUGSMITH_TOKEN: 'pst_not_a_token' }),
      t.cli(['plugins', 'create', '--org', ORG, '--name', 'x', '--type', 'APP'], {
        PLUGSMITH_BASE_URL: brokenUrl,
      }),
      t.cli(['plugins', 'list', '--colour']),
      t.cli(['plugins', 'list', '--limit', '0']),
      t.cli(['plugins', 'list', '--filter', 'noequals']),
      t.cli(['plugins', 'list', '--order', 'sideways']),
      t.cli(['plugin', 'list']),
      t.cli(['repos', 'get', 'repo_nope']),
    ]);
    expect(network.code).toBe(7);
    expect(network.stderr).toContain('connection refused');
    expect(network.stderr).toContain('plugsmith doctor');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('HTTP 401');
    expect(refused.stderr).toContain('plugsmith login');
    expect(server.code).toBe(1);
    expect(server.stderr).toContain('Something broke (HTTP 500 SERVER_ERROR)');
    for (const usage of [unknownOption, badLimit, badFilter, badOrder, unknownCommand])
      expect(usage.code).toBe(2);
    expect(badLimit.stderr).toContain('--limit must be a whole number from 1 to 100');
    expect(badFilter.stderr).toContain('--filter takes key=value');
    expect(notFound.code).toBe(4);
    // None of them printed anything on stdout.
    for (const r of [network, refused, server, notFound]) expect(r.stdout).toBe('');
  });

  test('an invalid query is a validation error (5) with the details the platform gave', async () => {
    const r = await t.cli(['plugins', 'list', '--org', ORG, '--sort', 'nonsense']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Invalid query parameters');
    expect(r.stderr).toMatch(/\n {2}- /);
  });

  test('pages: one page with a hint on stderr, --page, --cursor, and --all following every page', async () => {
    const filter = ['--filter', 'tags=paged', '--org', ORG];
    const [page1, page2, all, cursor, allHuman] = await Promise.all([
      t.cli([
        'plugins',
        'list',
        ...filter,
        '--limit',
        '2',
        '--sort',
        'name',
        '--order',
        'asc',
        '--json',
      ]),
      t.json([
        'plugins',
        'list',
        ...filter,
        '--limit',
        '2',
        '--page',
        '2',
        '--sort',
        'name',
        '--order',
        'asc',
      ]),
      t.json([
        'plugins',
        'list',
        ...filter,
        '--limit',
        '2',
        '--all',
        '--sort',
        'name',
        '--order',
        'asc',
      ]),
      t.cli([
        'plugins',
        'list',
        ...filter,
        '--limit',
        '2',
        '--cursor',
        '',
        '--sort',
        'name',
        '--order',
        'asc',
      ]),
      t.cli(['plugins', 'list', ...filter, '--all', '--limit', '2']),
    ]);
    expect(JSON.parse(page1.stdout).map((p: { name: string }) => p.name)).toEqual([
      'Paged 1',
      'Paged 2',
    ]);
    expect(page1.stderr).toContain('page 1 of 3, 5 in all; next: --page 2 (or --all)');
    expect(page2.map((p: { name: string }) => p.name)).toEqual(['Paged 3', 'Paged 4']);
    expect(all.map((p: { name: string }) => p.name)).toEqual([
      'Paged 1',
      'Paged 2',
      'Paged 3',
      'Paged 4',
      'Paged 5',
    ]);
    expect(cursor.stderr).toMatch(/more records: --cursor plg_\S+ \(or --all\)/);
    const next = /--cursor (\S+)/.exec(cursor.stderr)![1];
    const after = await t.json([
      'plugins',
      'list',
      ...filter,
      '--limit',
      '2',
      '--cursor',
      next,
      '--sort',
      'name',
      '--order',
      'asc',
    ]);
    expect(after.map((p: { name: string }) => p.name)).toEqual(['Paged 3', 'Paged 4']);
    expect(allHuman.stdout.match(/Paged \d/g)).toHaveLength(5);
    expect(allHuman.stderr).toBe('');
  });

  test('--json writes only JSON to stdout; --quiet silences notes; --verbose traces HTTP without the secret', async () => {
    const [json, quiet, verbose] = await Promise.all([
      t.cli(['tokens', 'create', '--name', 'json-token', '--json']),
      t.cli(['tokens', 'create', '--name', 'quiet-token', '--quiet']),
      t.cli(['plugins', 'list', '--org', ORG, '--verbose', '--limit', '1']),
    ]);
    const token = JSON.parse(json.stdout);
    expect(token.token).toMatch(/^pst_/);
    expect(json.stderr).toContain('shown only now');
    expect(quiet.stderr).toBe('');
    // --quiet prints the token alone (the one value a script takes from it).
    expect(quiet.stdout).toMatch(/^pst_\S+\n$/);
    expect(verbose.stderr).toMatch(
      new RegExp(
        `> GET ${t.emu.url.replace(/[.]/g, '\\.')}/api/orgs/org_dev/plugins\\?@limit=1 200 \\d+ms`,
      ),
    );
    expect(verbose.stderr).toContain('[authorization: Bearer ');
    expect(verbose.stderr).not.toContain(OWNER_TOKEN);

    // The new token works, and is limited to its org when made with --org.
    const limited = await t.json(['tokens', 'create', '--name', 'limited', '--org', ORG]);
    const check = await t.json(['plugins', 'list', '--org', ORG, '--limit', '1'], {
      PLUGSMITH_TOKEN: limited.token,
    });
    expect(Array.isArray(check)).toBe(true);
    const noName = await t.cli(['tokens', 'create']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('pass --name');
  });

  test('colour on a terminal only: bold headers, none with --no-color or NO_COLOR, none in a pipe', async () => {
    const args = ['plugins', 'list', '--org', ORG, '--limit', '1'];
    const [coloured, flag, variable, piped] = await Promise.all([
      onTerminal(args, { NO_COLOR: undefined, CI: undefined }),
      onTerminal([...args, '--no-color'], { NO_COLOR: undefined }),
      onTerminal(args, { NO_COLOR: '1' }),
      t.cli(args, { NO_COLOR: '' }),
    ]);
    expect(coloured.code, coloured.output).toBe(0);
    expect(coloured.output).toContain('\x1b[1mID');
    expect(coloured.output).toContain('\x1b[2mpage 1 of');
    expect(flag.output).toMatch(/^ID\s+NAME/m);
    expect(flag.output).not.toContain('\x1b[');
    expect(variable.output).not.toContain('\x1b[');
    expect(piped.stdout).not.toContain('\x1b[');
  });

  test('on a terminal a deletion asks for confirmation (and deletes on yes); with CI=true it never asks', async () => {
    const plugin = await t.api.plugins.createInOrg(ORG, { name: 'Ask me', type: 'APP' });
    const command = [process.execPath, CLI, 'plugins', 'delete', plugin.id]
      .map((a) => `'${a}'`)
      .join(' ');
    const env = { ...process.env, ...t.env, TERM: 'xterm-256color' } as Record<string, string>;
    delete env.CI;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d;
      if (output.includes('Delete plugin') && !child.stdin.writableEnded) child.stdin.end('y\r');
    });
    const [code] = await once(child, 'close');
    expect(output).toContain(`Delete plugin ${plugin.id}`);
    expect(code, output).toBe(0);
    expect(output).toContain(`deleted plugin ${plugin.id}`);
    expect((await t.cli(['plugins', 'get', plugin.id])).code).toBe(4);

    const ci = await onTerminal(['plugins', 'create', '--org', ORG, '--type', 'APP'], {
      CI: 'true',
    });
    expect(ci.code).toBe(2);
    expect(ci.output).toContain('pass --name');
  });
});
