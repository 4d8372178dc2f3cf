import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';

/**
 * A guard for a process group that outlives its starter (exec, or dev's plugin) only if the starter is killed with SIGKILL: it
 * waits for its stdin (a pipe from the starter) to close, which the kernel does however the starter ends, then sends the group SIGTERM and, after the grace period, SIGKILL. It runs
 * in a session of its own, so a terminal's Ctrl+C or hang-up never reaches it before the starter's own handling.
 */
export function startGroupGuard(groupId: number, graceMs: number): ChildProcess | undefined {
  const seconds = Math.max(1, Math.ceil(graceMs / 1000));
  const script = `read _ignored; kill -TERM -${groupId} 2>/dev/null || exit 0; sleep ${seconds}; kill -KILL -${groupId} 2>/dev/null; exit 0`;
  try {
    const guard = spawn('/bin/sh', ['-c', script], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    guard.on('error', () => undefined);
    guard.stdin!.on('error', () => undefined);
    // Neither keeps the starter running.
    guard.unref();
    // A child's stdin pipe is a net.Socket, typed only as the Writable it is for writing.
    if (guard.stdin instanceof Socket) guard.stdin.unref();
    return guard;
  } catch {
    return undefined;
  }
}
