import { spawn } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { env } from '../config/env.js';

/** How long the redirect page stays on disk: long enough for a browser that starts slowly. */
const REDIRECT_PAGE_LIFETIME_MS = 60_000;

/** The command that opens a URL: `BROWSER` when set, else the system's opener. */
function opener(url: string): { command: string; args: string[] } {
  const browser = env.browser();
  if (browser) return { command: browser, args: [url] };
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const html = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/** A page that sends the browser on to `url` at once (the meta refresh works without scripts). */
export function redirectPage(url: string): string {
  const script = JSON.stringify(url).replace(/</g, '\\u003c');
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<meta http-equiv="refresh" content="0;url=${html(url)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<title>plugsmith</title>',
    `<script>location.replace(${script});</script>`,
    '</head><body>',
    `<p>Opening <a href="${html(url)}">the plugsmith dashboard</a>…</p>`,
    '</body></html>',
    '',
  ].join('\n');
}

/**
 * Writes a redirect page for `url` into a new private folder (0700, the page 0600) and returns the
 * page's path. The link carries a single-use login code: any local user can read a process's
 * arguments, never this file. A detached helper removes the folder after a while, so it goes even
 * when this process (`emulator dashboard --open`) ends at once; only the folder's path is in its argv.
 */
async function privateRedirect(url: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-open-'));
  const page = join(dir, 'dashboard.html');
  const file = await open(page, 'wx', 0o600);
  try {
    await file.chmod(0o600);
    await file.writeFile(redirectPage(url));
  } finally {
    await file.close();
  }
  try {
    const cleanup = `setTimeout(() => require('node:fs').rmSync(process.argv[1], { recursive: true, force: true }), ${REDIRECT_PAGE_LIFETIME_MS})`;
    const child = spawn(process.execPath, ['-e', cleanup, dir], { detached: true, stdio: 'ignore' });
    child.once('error', () => undefined);
    child.unref();
  } catch {
    // Without the helper the page stays in the private temp folder until the system clears it.
  }
  return page;
}

/**
 * Opens `url` in a browser without waiting for it (`--open`), through a private redirect page so
 * that the URL (and the login code in it) never appears in a process's arguments. Resolves with
 * null once the browser command started, or with the reason it could not start (the caller says so;
 * the URL is printed anyway).
 */
export async function openInBrowser(url: string): Promise<string | null> {
  let target: string;
  try {
    target = pathToFileURL(await privateRedirect(url)).href;
  } catch (error) {
    return `cannot write the page that opens the link: ${(error as Error).message}`;
  }
  const { command, args } = opener(target);
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
