import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { startGroupGuard } from './group-guard.js';
import { UserError, EXIT } from '../errors.js';

/** What `plugsmith emulator exec` puts in the command's environment: the emulator's (and with --deploy, the plugin's). */
export function execEnvironment(
  emulator: {
    url: string;
    messagingUrl: string;
    token: string | null;
    apiKey: string | null;
    orgId: string | null;
    adminToken: string;
  },
  plugin?: { id: string; webhookSecret: string },
): Record<string, string> {
  return {
    PLUGSMITH_BASE_URL: emulator.url,
    PLUGSMITH_MESSAGING_URL: emulator.messagingUrl,
    PLUGSMITH_TOKEN: emulator.token ?? '',
    PLUGSMITH_API_KEY: emulator.apiKey ?? '',
    PLUGSMITH_ORG_ID: emulator.orgId ?? '',
    PLUGSMITH_ADMIN_TOKEN: emulator.adminToken,
    ...(plugin
      ? { PLUGSMITH_PLUGIN_ID: plugin.id, PLUGSMITH_WEBHOOK_SECRET: plugin.webhookSecret }
      : {}),
  };
}

/** How long a command has to end after exec passed it a signal, before its process group is killed (SIGKILL). */
export const EXEC_GRACE_MS = 5_000;
/** The signals exec passes on to the command's process group. */
const PASSED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const GROUPS = process.platform !== 'win32';

/**
 * Runs a shell command line (one word) or a program and its arguments on this terminal, in a process group of its own that exec
 * owns: SIGINT, SIGTERM and SIGHUP to exec reach the whole group; a group still running `graceMs` after the first (or at a second
 * signal) is killed; whatever the group leaves behind is killed when its leader ends, and on every way exec exits (even SIGKILL,
 * through a guard process). Resolves with the command's exit code, or 128 + the number of the signal that ended it.
 */
export async function runCommand(
  words: string[],
  environment: NodeJS.ProcessEnv,
  graceMs: number = EXEC_GRACE_MS,
): Promise<number> {
  // Listening before the command starts: a signal that came before a listener would end exec by default and orphan the command.
  let child: ChildProcess | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let pendingSignal: NodeJS.Signals | undefined;
  const signalGroup = (signal: NodeJS.Signals) => {
    if (!child) return;
    try {
      if (GROUPS && child.pid) process.kill(-child.pid, signal);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    } catch {
      // the group is gone
    }
  };
  const killGroupOnExit = () => signalGroup('SIGKILL');
  const forward = (signal: NodeJS.Signals) => {
    if (!child) {
      pendingSignal ??= signal;
      return;
    }
    if (graceTimer) {
      // A second signal while the command winds down: no more waiting.
      signalGroup('SIGKILL');
      return;
    }
    signalGroup(signal);
    graceTimer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
  };
  for (const signal of PASSED_SIGNALS) process.on(signal, forward);
  // An exception or process.exit on the way out: the group goes with exec.
  process.on('exit', killGroupOnExit);
  let guard: ChildProcess | undefined;
  try {
    // `detached` makes the command the leader of a new process group (and session): exec passes signals on itself.
    child =
      words.length === 1
        ? spawn(words[0], { shell: true, stdio: 'inherit', env: environment, detached: GROUPS })
        : spawn(words[0], words.slice(1), {
            stdio: 'inherit',
            env: environment,
            detached: GROUPS,
          });
    const exited = once(child, 'exit');
    if (GROUPS && child.pid) guard = startGroupGuard(child.pid, graceMs);
    if (pendingSignal) forward(pendingSignal);
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    return signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    throw new UserError(
      `cannot run ${words[0]}: ${code === 'ENOENT' ? 'no such command' : (error as Error).message}`,
      code === 'ENOENT' ? 127 : EXIT.UNEXPECTED,
    );
  } finally {
    clearTimeout(graceTimer);
    // What the leader left running (a background job, a server it started) would be an orphan.
    killGroupOnExit();
    process.off('exit', killGroupOnExit);
    for (const signal of PASSED_SIGNALS) process.off(signal, forward);
    // Its work is done; closing its pipe would make it signal a group that no longer exists.
    guard?.kill('SIGKILL');
  }
}
