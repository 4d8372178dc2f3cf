import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { commandLine, killMarked, markedProcesses } from '../kit/processes.js';
import { tempDir, until } from '../kit/index.js';
import { stateFiles } from '../kit/emulator-state.js';

// `npm start` runs `npm run build && … node bin/plugsmith.js emulator start`: npm forwards a SIGINT
// to the shell of the script, so the emulator stops only if the shell hands its place to node.
// The script is this repository's own, run in a fixture package whose build is a no-op (dist/ is
// built already) and whose bin/ is this repository's.

const ROOT = resolve(import.meta.dirname, '../..');

/** The live node processes carrying `mark` that run `emulator start` (not the shell that started one). */
const emulators = (mark: string) =>
  markedProcesses('PLUGSMITH_TEST_PROCESS', mark).filter((pid) => {
    const [program, ...args] = commandLine(pid).split(' ');
    return basename(program) === 'node' && args.join(' ').includes('emulator start');
  });

test('kill -INT of the `npm start` process stops the emulator it started', async () => {
  const ownPackage = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const fixture = await tempDir('plugsmith-npm-start-');
  await symlink(join(ROOT, 'bin'), join(fixture, 'bin'));
  await writeFile(
    join(fixture, 'package.json'),
    JSON.stringify({
      name: 'npm-start-fixture',
      private: true,
      scripts: { build: 'node -e 0', start: ownPackage.scripts.start },
    }),
  );
  const configDir = await tempDir('plugsmith-cfg-');
  const mark = randomUUID();
  onTestFinished(() => killMarked('PLUGSMITH_TEST_PROCESS', mark));

  const npm = spawn('npm', ['start', '--', '--port', '0', '--messaging-port', '0', '--in-memory'], {
    cwd: fixture,
    env: {
      ...process.env,
      CI: 'true',
      NO_COLOR: '1',
      PLUGSMITH_CONFIG_DIR: configDir,
      PLUGSMITH_TEST_PROCESS: mark,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (d) => (output += d));
  npm.stderr.on('data', (d) => (output += d));
  // 'exit', not 'close': an emulator left behind would hold the pipes open.
  let npmExited = false;
  npm.on('exit', () => {
    npmExited = true;
  });

  // Ready once its state file is written.
  await until('the state file', async () => (await stateFiles(configDir)).length > 0, {
    timeoutMs: 60_000,
    explain: () => output,
  });
  expect(emulators(mark)).toHaveLength(1);

  npm.kill('SIGINT');
  await until('npm and its emulator to stop', () => npmExited && emulators(mark).length === 0, {
    explain: () =>
      `npm ${npmExited ? 'exited' : 'is still running'}; emulators still running: ${emulators(mark).map(commandLine).join(', ') || 'none'}`,
  });
});
