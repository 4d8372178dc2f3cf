import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = `${ROOT}dist/emulator/index.js`;
const SCRIPT = fileURLToPath(new URL('./emulator-child-main.mjs', import.meta.url));

/** The built emulator a child process runs; a clear failure when it was not built. */
export function builtEmulator(): string {
  if (!existsSync(ENTRY)) {
    throw new Error(
      `${ENTRY} is missing: these tests run the built emulator in a child process. Run \`npx tsup\` first (\`npm test\` builds before testing).`,
    );
  }
  return ENTRY;
}

/** What the child prints once it listens. */
export interface ChildInfo {
  url: string;
  token: string;
  orgId: string;
  adminToken: string;
  pid: number;
}

/** An emulator in its own process, on a data dir. */
export interface EmulatorChild {
  info: ChildInfo;
  process: ChildProcess;
  /** Kills it with SIGKILL and resolves once it is gone (reaped, so its pid is dead). */
  kill(): Promise<void>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** Starts the built emulator in a child process on `dataDir` and waits until it listens. */
export function startChild(
  dataDir: string,
  options: { compactAfterLines?: number; env?: Record<string, string> } = {},
): Promise<EmulatorChild> {
  const extra = options.compactAfterLines ? [String(options.compactAfterLines)] : [];
  const child = spawn(process.execPath, [SCRIPT, builtEmulator(), dataDir, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the emulator child did not start within 20 s: ${stderr}`));
    }, 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const nl = stdout.indexOf('\n');
      if (nl === -1) return;
      clearTimeout(timer);
      resolve({
        info: JSON.parse(stdout.slice(0, nl)) as ChildInfo,
        process: child,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
        stderr: () => stderr,
      });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`the emulator child exited (${code ?? signal}) before listening: ${stderr}`),
      );
    });
  });
}
