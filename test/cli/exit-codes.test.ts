import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCliInProcess as runCli, tempDir } from '../kit/index.js';

// In this process (the kit's runner applies src/cli.ts's error-to-exit-code rule): what is under
// test is each command's exit code, not the process.
const tempConfigDir = () => tempDir('plugsmith-cfg-');

// The "Exit codes" table (docs/exit-codes.md), applied the same way by every command. (From the audit of #14:
// whoami answered 1 and `emulator export|import|reset` 7 for `--base-url notaurl`, having sent a
// request to "notaurl/_emulator/…"; `tokens list` named an unknown option instead of the command.)

const isolated = (config: string, more: Record<string, string> = {}) => ({
  PLUGSMITH_CONFIG_DIR: config,
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_PROFILE: '',
  PLUGSMITH_TOKEN: 'pst_audit',
  PLUGSMITH_API_KEY: 'psk_audit',
  PLUGSMITH_ADMIN_TOKEN: 'psa_audit_token_0123456789',
  ...more,
});

describe('an invalid platform URL is a usage error (exit 2) on every command, from a flag or the environment', () => {
  const cases: string[][] = [
    ['plugins', 'marketplace'],
    ['whoami'],
    ['doctor'],
    ['emulator', 'export', '/tmp/plugsmith-audit-never.json'],
    ['emulator', 'import', '/tmp/plugsmith-audit-never.json', '--yes'],
    ['emulator', 'reset', '--yes'],
  ];
  for (const args of cases) {
    test(`${args.slice(0, 2).join(' ')}: --base-url and PLUGSMITH_BASE_URL`, async () => {
      const config = await tempConfigDir();
      const [flag, variable] = await Promise.all([
        runCli([...args, '--base-url', 'notaurl'], { env: isolated(config) }),
        runCli(args, { env: isolated(config, { PLUGSMITH_BASE_URL: 'notaurl' }) }),
      ]);
      expect(flag.stderr).toContain('--base-url must be an absolute http(s) URL');
      expect(flag.stderr).toContain('notaurl');
      expect(flag.code, flag.stderr).toBe(2);
      expect(variable.stderr + variable.stdout).toContain(
        'PLUGSMITH_BASE_URL must be an absolute http(s) URL',
      );
      expect(variable.code, variable.stderr).toBe(2);
    });
  }

  test('--messaging-url and PLUGSMITH_MESSAGING_URL too; a valid flag overrides a bad variable', async () => {
    const config = await tempConfigDir();
    const [flag, variable, overridden] = await Promise.all([
      runCli(['messages', 'list', 'conv_x', '--messaging-url', 'ftp://x'], {
        env: isolated(config),
      }),
      runCli(['messages', 'list', 'conv_x'], {
        env: isolated(config, { PLUGSMITH_MESSAGING_URL: 'localhost:4011' }),
      }),
      // A closed port: the URL is accepted, and the request fails as a network error (7).
      runCli(['plugins', 'marketplace', '--base-url', 'http://127.0.0.1:9', '--timeout', '5'], {
        env: isolated(config, { PLUGSMITH_BASE_URL: 'notaurl' }),
      }),
    ]);
    expect(flag.code, flag.stderr).toBe(2);
    expect(flag.stderr).toContain('--messaging-url must be an absolute http(s) URL');
    expect(variable.code, variable.stderr).toBe(2);
    expect(variable.stderr).toContain('PLUGSMITH_MESSAGING_URL must be an absolute http(s) URL');
    expect(overridden.code, overridden.stderr).toBe(7);
  });
});

describe('an unknown subcommand of any group', () => {
  test('says "unknown command", names the group\'s commands, exit 2, whatever options follow it', async () => {
    const [tokens, withOption, emulator] = await Promise.all([
      runCli(['tokens', 'list']),
      runCli(['tokens', 'list', '--base-url', 'x']),
      runCli(['emulator', 'halt', '--yes']),
    ]);
    for (const run of [tokens, withOption]) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        "unknown command 'list' of `plugsmith tokens` (its commands: create)",
      );
      expect(run.stderr).not.toContain('unknown option');
    }
    expect(emulator.code, emulator.stderr).toBe(2);
    expect(emulator.stderr).toContain("unknown command 'halt' of `plugsmith emulator`");
    expect(emulator.stderr).toContain('start, list, stop, exec, export, import, openapi, reset');
  });

  test('an unknown option before any command is still an unknown option', async () => {
    const [group, root] = await Promise.all([
      runCli(['tokens', '--bogus']),
      runCli(['--bogus', 'plugins', 'list']),
    ]);
    for (const run of [group, root]) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain("unknown option '--bogus'");
    }
  });
});

describe('representative cases of the table', () => {
  test('an invalid config file is 5 (an invalid JSON file); login --local with no emulator is 4 (no running emulator)', async () => {
    const broken = await tempConfigDir();
    await writeFile(join(broken, 'config.json'), '{ not json');
    const empty = await tempConfigDir();
    const [invalid, login] = await Promise.all([
      runCli(['plugins', 'list'], { env: isolated(broken) }),
      runCli(['login', '--local'], { env: isolated(empty) }),
    ]);
    expect(invalid.code, invalid.stderr).toBe(5);
    expect(invalid.stderr).toContain('is not valid JSON');
    expect(login.code, login.stderr).toBe(4);
    expect(login.stderr).toContain('no emulator is running');
  });

  test('doctor with no profile and no emulator: one problem, the emulator, exit 4; no login asked for', async () => {
    const empty = await tempConfigDir();
    const doctor = await runCli(['doctor'], {
      env: isolated(empty, { PLUGSMITH_TOKEN: '', PLUGSMITH_API_KEY: '' }),
    });
    expect(doctor.code, doctor.stderr).toBe(4);
    expect(doctor.stderr).toContain('1 problem found: emulator');
    expect(doctor.stdout).toMatch(/^✖ emulator +no emulator is running/m);
    expect(doctor.stdout).toMatch(/^✔ profile +none: commands use the running local emulator/m);
    expect(doctor.stdout).not.toContain('messaging API');
    expect(doctor.stdout).not.toMatch(/✔ emulator/);

    // A `login --local` profile follows the emulator too: named as such, and the same one problem.
    const local = await tempConfigDir();
    await writeFile(
      join(local, 'config.json'),
      JSON.stringify({ current: 'dev', profiles: { dev: { local: true } } }),
      { mode: 0o600 },
    );
    const withLocal = await runCli(['doctor'], {
      env: isolated(local, { PLUGSMITH_TOKEN: '', PLUGSMITH_API_KEY: '' }),
    });
    expect(withLocal.code, withLocal.stdout + withLocal.stderr).toBe(4);
    expect(withLocal.stdout).toMatch(/^✔ profile +profile "dev": the running local emulator/m);
    expect(withLocal.stdout).toMatch(
      /^✖ emulator +the profile is local but no emulator is running/m,
    );
    expect(withLocal.stderr).toContain('1 problem found: emulator');
  });

  test('without a terminal, a command that would ask for several values names them all in one run (2)', async () => {
    const config = await tempConfigDir();
    const [remote, urlOnly] = await Promise.all([
      runCli(['login'], { env: isolated(config) }),
      runCli(['login', '--token', '-'], { env: isolated(config) }),
    ]);
    expect(remote.code, remote.stderr).toBe(2);
    expect(remote.stderr).toContain(
      'missing --base-url and --token - (reading the token from stdin): pass them (no prompts without a terminal or under CI)',
    );
    // One missing value keeps its prompt's own message.
    expect(urlOnly.code, urlOnly.stderr).toBe(2);
    expect(urlOnly.stderr).toContain('pass --base-url');
  });

  test('a data dir open in another emulator is 6 (conflict); one whose snapshot cannot be read is 5', async () => {
    const config = await tempConfigDir();
    const locked = join(config, 'locked');
    await mkdir(locked);
    // The test runner's main process stands for the other emulator: a live pid that is not the CLI's
    // (the CLI runs in this process).
    await writeFile(join(locked, 'emulator.lock'), String(process.ppid));
    const corrupt = join(config, 'corrupt');
    await mkdir(corrupt);
    await writeFile(join(corrupt, 'snapshot.json'), '{ not json');
    const args = ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--data-dir'];
    const [conflict, invalid] = await Promise.all([
      runCli([...args, locked], { env: isolated(config) }),
      runCli([...args, corrupt], { env: isolated(join(config, 'other')) }),
    ]);
    expect(conflict.code, conflict.stderr).toBe(6);
    expect(conflict.stderr).toContain(`in use by another emulator (pid ${process.ppid})`);
    expect(invalid.code, invalid.stderr).toBe(5);
    expect(invalid.stderr).toContain('cannot be read');
  });
});
