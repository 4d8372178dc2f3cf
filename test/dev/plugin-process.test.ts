import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { PluginProcess } from '../../src/dev/plugin-process.js';
import { tempDir, until } from '../kit/index.js';
import { groupMembers } from '../kit/processes.js';

// dev runs the plugin's command line through a shell, in a process group of its own. A shell that forks the command
// rather than exec it (dash, Debian's /bin/sh) exits at once on SIGTERM; dev took that exit for the plugin's and sent
// the group SIGKILL, so no plugin ever closed its server on a restart or at Ctrl+C, and the restart found the port still
// held ("the plugin cannot listen on 3001: port 3001 is in use"). The whole group now gets the grace period.

/** A plugin that takes 300 ms to close on SIGTERM, and says when it has; `; true` keeps the shell a process of its own. */
async function slowToClose(): Promise<{ dir: string; command: string }> {
  const dir = await tempDir('plugsmith-plugin-process-');
  await writeFile(
    join(dir, 'plugin.js'),
    `const group = require('node:fs').readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2];
process.on('SIGTERM', () => { console.log('sigterm ' + process.pid); setTimeout(() => { console.log('closed cleanly ' + process.pid); process.exit(0); }, 300); });
// Ready once its SIGTERM handler is in place: said before it, a stop on a loaded machine could come first and kill it.
console.log('ready ' + process.pid + ' group ' + group);
setInterval(() => {}, 1000);
`,
  );
  return { dir, command: 'node plugin.js; true' };
}

function pluginProcess(dir: string, command: string, lines: string[]): PluginProcess {
  return new PluginProcess({
    command,
    cwd: dir,
    env: { PATH: process.env.PATH },
    onOutput: (line) => lines.push(line),
    onStart: () => undefined,
    onExit: () => undefined,
  });
}

test.runIf(process.platform !== 'win32')(
  'stop() gives the plugin its grace period though the shell of its command line exits at once, and resolves once the whole group has ended',
  async () => {
    const { dir, command } = await slowToClose();
    const lines: string[] = [];
    const plugin = pluginProcess(dir, command, lines);
    plugin.start();
    const [, pid, group] = await until('the plugin to start', () =>
      lines.map((line) => /^ready (\d+) group (\d+)$/.exec(line)).find(Boolean),
    );
    // The shell leads the group; the plugin is another process of it.
    expect(groupMembers(Number(group)).length).toBeGreaterThanOrEqual(2);
    await plugin.stop();
    expect(lines).toContain(`closed cleanly ${pid}`);
    expect(groupMembers(Number(group))).toEqual([]);
  },
);

test.runIf(process.platform !== 'win32')(
  "the grace holds for a plugin that writes to a file of its own (its end closes no pipe of dev's), and a second stop() waits for the first",
  async () => {
    const { dir } = await slowToClose();
    const lines: string[] = [];
    const plugin = pluginProcess(dir, 'node plugin.js > plugin.log 2>&1; true', lines);
    plugin.start();
    const log = join(dir, 'plugin.log');
    const [, pid, group] = await until('the plugin to start', async () =>
      /^ready (\d+) group (\d+)$/m.exec(await readFile(log, 'utf8').catch(() => '')),
    );
    await Promise.all([plugin.stop(), plugin.stop()]);
    const written = await readFile(log, 'utf8');
    expect(written).toContain(`closed cleanly ${pid}`);
    // Signalled once: the second stop() waited for the first.
    expect(written.match(/^sigterm /gm)).toHaveLength(1);
    expect(groupMembers(Number(group))).toEqual([]);
  },
);
