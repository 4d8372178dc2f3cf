import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { spawnCli } from '../kit/cli-process.js';
import { commandLine, groupMembers } from '../kit/processes.js';
import { until, tempDir } from '../kit/index.js';

// `plugsmith emulator exec` owns its command: the command runs in a process group of its own, and
// SIGINT, SIGTERM and SIGHUP to exec reach that whole group. Before, only `sh` got them, so
// `exec -- sh -c "sleep 100"` never ended on Ctrl+C, a command that ignored TERM kept exec and its
// emulator running for good, and SIGHUP or SIGKILL to exec left the command orphaned. Real processes:
// the command writes its process group id ($$, the group leader) to a file the test reads.

/** Starts `exec` with `words`; resolves once the command wrote its group id (and its children run). */
async function startExec(words: (pidFile: string) => string[], extra: string[] = []) {
  const dir = await tempDir('plugsmith-exec-signals-');
  const pidFile = join(dir, 'group');
  const exec = spawnCli(['emulator', 'exec', ...extra, '--', ...words(pidFile)], {
    env: { PLUGSMITH_CONFIG_DIR: join(dir, 'config') },
  });
  const group = await until('the command to start', () => {
    if (!existsSync(pidFile)) return undefined;
    const text = readFileSync(pidFile, 'utf8').trim();
    return text ? Number(text) : undefined;
  });
  // The children the command started are running `sleep` itself. A member counted between the shell's fork and
  // its exec of sleep is still a copy of dash that catches SIGINT (dash catches it under -c): a SIGINT in that
  // window is lost, sleep 100 runs on, and exec ends it only after its grace (137, not 130).
  await until('its children', () =>
    groupMembers(group).some((pid) => commandLine(pid).startsWith('sleep')) ? true : undefined,
  );
  const exited = once(exec.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { exec, group, exited, pidFile };
}

describe('emulator exec owns its command', { timeout: 60_000 }, () => {
  test('SIGINT to `exec -- sh -c "sleep 100"` ends exec and the whole command (130)', async () => {
    const { exec, group, exited } = await startExec((f) => [
      'sh',
      '-c',
      `echo $$ > ${f}; sleep 100`,
    ]);
    expect(group).not.toBe(exec.child.pid);
    exec.child.kill('SIGINT');
    const [code, signal] = await exited;
    expect(code, `${signal} ${exec.stderr()}`).toBe(130);
    expect(groupMembers(group)).toEqual([]);
  });

  test('the one-word form (a shell command line) ends on SIGINT as well', async () => {
    const { exec, group, exited } = await startExec((f) => [`echo $$ > ${f}; sleep 100`]);
    exec.child.kill('SIGINT');
    const [code, signal] = await exited;
    expect(code, `${signal} ${exec.stderr()}`).toBe(130);
    expect(groupMembers(group)).toEqual([]);
  });

  test('SIGHUP reaches the command too (129)', async () => {
    const { exec, group, exited } = await startExec((f) => [
      'sh',
      '-c',
      `echo $$ > ${f}; sleep 100`,
    ]);
    exec.child.kill('SIGHUP');
    const [code, signal] = await exited;
    expect(code, `${signal} ${exec.stderr()}`).toBe(129);
    expect(groupMembers(group)).toEqual([]);
  });

  test('a command that ignores SIGTERM, SIGINT and SIGHUP is killed after --grace (137)', async () => {
    const { exec, group, exited } = await startExec(
      (f) => ['sh', '-c', `trap "" TERM INT HUP; echo $$ > ${f}; while :; do sleep 1; done`],
      ['--grace', '1'],
    );
    exec.child.kill('SIGTERM');
    const [code, signal] = await exited;
    expect(code, `${signal} ${exec.stderr()}`).toBe(137);
    expect(groupMembers(group)).toEqual([]);
  });

  test('what the command leaves running in the background is ended with it', async () => {
    // The command ends on its own (0) when the test says so, leaving `sleep 100` behind.
    const { exec, group, exited, pidFile } = await startExec((f) => [
      'sh',
      '-c',
      `echo $$ > ${f}; sleep 100 & while [ ! -e ${f}.end ]; do sleep 0.05; done`,
    ]);
    await writeFile(`${pidFile}.end`, '');
    const [code, signal] = await exited;
    expect(code, `${signal} ${exec.stderr()}`).toBe(0);
    expect(groupMembers(group)).toEqual([]);
  });

  test('SIGKILL to exec: its guard ends the command, no orphan stays', async () => {
    const { exec, group, exited } = await startExec((f) => [
      'sh',
      '-c',
      `echo $$ > ${f}; sleep 100`,
    ]);
    exec.child.kill('SIGKILL');
    await exited;
    await until('the group to end', () => (groupMembers(group).length === 0 ? true : undefined));
    expect(groupMembers(group)).toEqual([]);
  });

  test('the group id file is the command', async () => {
    // A guard against a test that passes for the wrong reason: the file names a live group while the command runs.
    const { exec, group } = await startExec((f) => ['sh', '-c', `echo $$ > ${f}; sleep 100`]);
    expect(groupMembers(group).length).toBeGreaterThanOrEqual(2);
    expect((await readFile(`/proc/${group}/cmdline`, 'latin1')).split('\0')[0]).toBe('sh');
    await exec.stop('SIGTERM');
  });
});
