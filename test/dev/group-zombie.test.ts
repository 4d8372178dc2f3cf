import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, onTestFinished, test } from 'vitest';
import { groupLives } from '../../src/dev/plugin-process.js';

// A plugin's process group is over when nothing of it runs. On Linux a member that exited but is not reaped (a zombie:
// its parent died first, and PID 1 of a container without an init reaps late) still answers signal 0 to the group, so
// dev and `scenario run --start` waited out the whole stop grace for a plugin that had long exited. Here a real zombie:
// a Python process forks a child that leads a group of its own and exits at once, and the parent never reaps it.

test('a group whose only member is a zombie is over; one with a running member is not', async () => {
  const parent = spawn(
    'python3',
    [
      '-c',
      [
        'import os, sys, time',
        'pid = os.fork()',
        'if pid == 0:',
        '    os.setpgid(0, 0)',
        '    os._exit(0)',
        'print(pid, flush=True)',
        'time.sleep(60)',
      ].join('\n'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onTestFinished(async () => {
    if (parent.exitCode === null) {
      parent.kill('SIGKILL');
      await once(parent, 'exit');
    }
  });
  const [line] = (await once(createInterface({ input: parent.stdout! }), 'line')) as [string];
  const group = Number(line);
  // Until the child has exited: its /proc entry says Z (a zombie), and it is still there (nobody reaps it).
  for (let tries = 0; ; tries++) {
    const stat = await readFile(`/proc/${group}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break;
    if (tries > 200) throw new Error(`the child never exited: ${stat}`);
    await sleep(10);
  }
  // Signal 0 still reaches the group (the zombie), which is what the stop used to wait on.
  expect(() => process.kill(-group, 0)).not.toThrow();
  expect(await groupLives(group)).toBe(false);
  // The parent's own group runs.
  const { pid } = parent;
  const ownGroup = Number(
    (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ')[2],
  );
  expect(await groupLives(ownGroup)).toBe(true);
});
