import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, mkdtemp, open, readdir, rm } from 'node:fs/promises';
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

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const html = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/** A page that sends the browser on to `url` at once (the meta refresh works without scripts). */
function redirectPage(url: string): string {
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

const PAGE_FOLDER_PREFIX = 'plugsmith-open-';

/** Removes this user's redirect pages older than their lifetime: a command that ends at once cannot wait for the browser. */
async function sweepOldPages(): Promise<void> {
  const root = tmpdir();
  const names = await readdir(root).catch(() => [] as string[]);
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(PAGE_FOLDER_PREFIX)) continue;
    const dir = join(root, name);
    const info = await lstat(dir).catch(() => null);
    if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
    if (Date.now() - info.mtimeMs > REDIRECT_PAGE_LIFETIME_MS)
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Writes a redirect page to `url` in a new private folder: the link's login code is in no process's arguments, which any user can read. */
async function privateRedirect(url: string): Promise<string> {
  await sweepOldPages();
  const dir = await mkdtemp(join(tmpdir(), PAGE_FOLDER_PREFIX));
  const page = join(dir, 'dashboard.html');
  const file = await open(page, 'wx', 0o600);
  try {
    await file.chmod(0o600);
    await file.writeFile(redirectPage(url));
  } finally {
    await file.close();
  }
  // Unref'd: it never keeps a command running, and goes with the process.
  setTimeout(
    () => void rm(dir, { recursive: true, force: true }).catch(() => undefined),
    REDIRECT_PAGE_LIFETIME_MS,
  ).unref();
  return page;
}

/** Opens `url` in a browser (through a private redirect page) without waiting; resolves with null, or why the browser did not start. */
export async function openInBrowser(url: string): Promise<string | null> {
  let target: string;
  try {
    target = pathToFileURL(await privateRedirect(url)).href;
  } catch (error) {
    return `cannot write the page that opens the link: ${(error as Error).message}`;
  }
  const { command, args } = opener(target);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    await once(child, 'spawn');
    child.unref();
    return null;
  } catch (error) {
    return `${command}: ${(error as Error).message}`;
  }
}
