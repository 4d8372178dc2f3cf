import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, onTestFinished, test } from 'vitest';
import { describeTakenPort } from '../../src/dev/ports.js';
import { tempDir } from '../kit/index.js';

// Who holds a port is read from the system (/proc on Linux): another process's command line, which anyone on the
// machine chooses. Printed in dev's and emulator start's port errors, its control characters must be shown, never
// sent to the terminal as they are (a line break forging a second line, an escape sequence recolouring or retitling it).

test("a taken port's holder is named with the controls of its command line made visible", async () => {
  const hostile = 'n\nerror: forged\u001b]0;t\u0007\u001b[31mred';
  // A script file keeps the command line short enough to be shown whole.
  const dir = await tempDir('plugsmith-holder-');
  const script = join(dir, 'h.js');
  await writeFile(
    script,
    "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
  );
  const holder = spawn(process.execPath, [script, hostile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(async () => {
    if (holder.exitCode === null) {
      holder.kill();
      await once(holder, 'exit');
    }
  });
  const [line] = (await once(createInterface({ input: holder.stdout! }), 'line')) as [string];
  const described = await describeTakenPort(Number(line));
  expect(described).toContain(`(pid ${holder.pid})`);
  expect(described).toContain('n\\x0aerror: forged\\x1b]0;t\\x07\\x1b[31mred');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for raw control characters
  expect(described).not.toMatch(/[\u0000-\u001f]/);
});
