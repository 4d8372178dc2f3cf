import { describe, expect, test } from 'vitest';
import { terminal } from './terminal.js';

// The kit's terminal: a real pseudo-terminal, its screen rendered as a terminal shows it, the
// command ended with the test.

/** A node script in the terminal: the program a test runs there. */
function nodeInTerminal(script: string, options: Parameters<typeof terminal>[2] = {}) {
  return terminal(process.execPath, ['--eval', script], options);
}

/** Whether a process is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the kit terminal', () => {
  test('is a terminal to the program, of the size asked, without CI; the screen shows what it wrote, and the exit code is read', async () => {
    const t = nodeInTerminal(
      [
        'const { isTTY, columns, rows } = process.stdout;',
        "console.log('tty', isTTY, columns + 'x' + rows);",
        "const { CI = 'unset', TERM, GREETING } = process.env;",
        "console.log('CI=' + CI, 'TERM=' + TERM, 'GREETING=' + GREETING);",
        'process.exitCode = 3;',
      ].join('\n'),
      { columns: 70, rows: 12, env: { GREETING: 'hi' } },
    );
    expect(await t.waitForExit()).toBe(3);
    expect(t.screen()).toContain('tty true 70x12');
    expect(t.screen()).toContain('CI=unset TERM=xterm-256color GREETING=hi');
  });

  test('renders the screen: a line rewritten in place shows its last text, a long line is joined', async () => {
    const t = nodeInTerminal(
      [
        "process.stdout.write('loading 1%');",
        "process.stdout.write('\\r\\x1b[2Kloaded\\n');",
        "console.log('x'.repeat(50));",
      ].join('\n'),
      { columns: 20 },
    );
    await t.waitForExit();
    const lines = t.screen().split('\n');
    expect(lines).toContain('loaded');
    expect(lines).toContain('x'.repeat(50));
    expect(t.screen()).not.toContain('loading');
  });

  test('types text and presses keys, arrows as the program asked for them', async () => {
    const t = nodeInTerminal(
      [
        'process.stdin.setRawMode(true);',
        // Application cursor keys on (as full-screen programs do): arrows come as ESC O A.
        "process.stdout.write('\\x1b[?1h> ');",
        "let got = '';",
        "process.stdin.on('data', (d) => {",
        '  got += d;',
        "  if (got.endsWith('\\r')) { console.log('\\r\\ngot ' + [...got].map((c) => c.codePointAt(0).toString(16)).join(' ')); process.exit(0); }",
        '});',
      ].join('\n'),
    );
    await t.waitFor(/^> /m);
    t.type('héllo');
    t.press('Up', 'Backspace', 'Enter');
    expect(await t.waitForExit()).toBe(0);
    // é is one character; Up is ESC O A; Backspace is DEL (7f); Enter is CR.
    expect(t.screen()).toContain('got 68 e9 6c 6c 6f 1b 4f 41 7f d');
  });

  test('a program ended by a signal exits with 128 + its number, as in a shell', async () => {
    const t = nodeInTerminal("process.kill(process.pid, 'SIGTERM');");
    expect(await t.waitForExit()).toBe(143);
  });

  test('resizes: the program gets the new size', async () => {
    const t = nodeInTerminal(
      [
        "console.log('ready');",
        "process.stdout.on('resize', () => console.log('now', process.stdout.columns + 'x' + process.stdout.rows));",
        'setTimeout(() => {}, 60_000);',
      ].join('\n'),
    );
    await t.waitFor(/ready/);
    t.resize(90, 30);
    await t.waitFor(/now 90x30/);
  });

  test('fails a wait with what the screen shows', async () => {
    const t = nodeInTerminal("console.log('only this'); setTimeout(() => {}, 60_000);");
    await t.waitFor(/only this/);
    await expect(t.waitFor(/something else/, { timeoutMs: 300 })).rejects.toThrow(
      /never showed \/something else\/; last screen:\nonly this/,
    );
  });

  let started = 0;
  test('a program still running when the test ends…', async () => {
    const t = nodeInTerminal(
      "process.on('SIGHUP', () => {}); console.log('pid', process.pid); setTimeout(() => {}, 60_000);",
    );
    started = Number(/pid (\d+)/.exec(await t.waitFor(/pid \d+/))![1]);
    expect(alive(started)).toBe(true);
  });

  test('…is ended by the kit, even one that ignores the hang-up', () => {
    expect(started).toBeGreaterThan(0);
    expect(alive(started)).toBe(false);
  });
});
