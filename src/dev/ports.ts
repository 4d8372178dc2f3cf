import { execFile } from 'node:child_process';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { shorten } from '../ui/output.js';
import { escapeControls } from '../ui/terminal-text.js';

/** Whether a TCP port can be listened on (on every interface, as a plugin's server usually does; or on `host`). */
export function portIsFree(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code !== 'EADDRINUSE' && error.code !== 'EACCES'),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** How many ports after a taken one are tried before any free port will do. */
const NEARBY_PORTS = 10;

/** A free port near `taken` (the next ones first, so that a second project's plugin reads as 3001), else any free port. */
export async function freePortNear(taken: number): Promise<number> {
  for (let port = taken + 1; port <= Math.min(taken + NEARBY_PORTS, 65535); port++) {
    if (await portIsFree(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, exclusive: true }, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface PortUser {
  pid: number;
  command: string;
}

/** "port 3000 is in use by `node server.js` (pid 1234)": from /proc on Linux (socket inode, then its process), else `lsof`; best effort. */
export async function describeTakenPort(port: number): Promise<string> {
  const user = (await fromProc(port).catch(() => null)) ?? (await fromLsof(port).catch(() => null));
  // Another process's command line is anyone's text: its controls (a line break, an escape sequence) are shown, not run.
  return user
    ? `port ${port} is in use by \`${escapeControls(user.command)}\` (pid ${user.pid})`
    : `port ${port} is in use by another process`;
}

async function fromProc(port: number): Promise<PortUser | null> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A') continue; // 0A: LISTEN
      const local = fields[1];
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return null;
  const wanted = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // None of another user's process, or of one gone.
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      if (!wanted.has(target)) continue;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      const command =
        cmdline.split('\0').filter(Boolean).join(' ') ||
        (await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '?')).trim();
      return { pid: Number(entry), command: shorten(command, 80) };
    }
  }
  return null;
}

function fromLsof(port: number): Promise<PortUser | null> {
  return new Promise((resolve) => {
    execFile(
      'lsof',
      ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'],
      { timeout: 3000 },
      (error, stdout) => {
        if (error && !stdout) return resolve(null);
        const pid = /^p(\d+)$/m.exec(stdout);
        const command = /^c(.+)$/m.exec(stdout);
        resolve(pid ? { pid: Number(pid[1]), command: shorten(command?.[1] ?? '?', 80) } : null);
      },
    );
  });
}
