import { spawn } from 'node:child_process';
import { env } from '../config/env.js';

/** The command that opens a URL: `BROWSER` when set, else the system's opener. */
function opener(url: string): { command: string; args: string[] } {
  const browser = env.browser();
  if (browser) return { command: browser, args: [url] };
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Opens `url` in a browser without waiting for it (`--open`). Resolves with null once the browser
 * command started, or with the reason it could not start (the caller says so; the URL is printed anyway).
 */
export function openInBrowser(url: string): Promise<string | null> {
  const { command, args } = opener(url);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { detached: true, stdio: 'ignore' });
    } catch (error) {
      resolve(`${command}: ${(error as Error).message}`);
      return;
    }
    child.once('error', (error) => resolve(`${command}: ${error.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(null);
    });
  });
}
