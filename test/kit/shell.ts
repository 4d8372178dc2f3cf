import { spawn } from 'node:child_process';

export interface ShellRun {
  code: number | null;
  /** stdout and stderr as they came. */
  output: string;
  /** stdout alone. */
  stdout: string;
}

/**
 * The environment a person's shell would have: without the variables of the npm and vitest that
 * run the tests (a nested npm would otherwise take this package's prefix and config, and a nested
 * vitest this run's worker settings), with `extra` on top.
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const own = Object.entries(process.env).filter(
    ([k, v]) => v !== undefined && !/^(npm_|VITEST|NODE_ENV$|TEST$)/i.test(k),
  ) as Array<[string, string]>;
  // The run's HOME is a temporary folder (test/kit/run-setup.ts); npm's download cache stays the person's.
  const cache: Record<string, string> = process.env.npm_config_cache
    ? { npm_config_cache: process.env.npm_config_cache }
    : {};
  return { ...Object.fromEntries(own), ...cache, NO_COLOR: '1', CI: 'true', ...extra };
}

/** Runs a command to completion in a person's environment (see `userEnv`); stdout and stderr together. */
export function sh(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env: Record<string, string> = userEnv(),
): Promise<ShellRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (d) => {
      output += d;
      stdout += d;
    });
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output, stdout });
    });
  });
}
