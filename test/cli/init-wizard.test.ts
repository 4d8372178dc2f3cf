import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTerminal } from '../kit/terminal.js';
import { loadManifest } from '../../src/manifest/load.js';

// The init wizard in a real terminal (a pseudo-terminal, test/kit/terminal.ts): the built CLI with CI
// unset, keys answer each prompt.

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'plugsmith-wizard-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `plugsmith init <args>` in a real terminal, CI unset so it may prompt. */
function initInTerminal(args: string[]) {
  return cliTerminal(['init', ...args], { env: { NO_COLOR: '1' } });
}

describe('plugsmith init wizard in a real terminal', () => {
  it('asks name, type, language, events, scopes and port, then writes the project', async () => {
    const dir = join(root, 'wz');
    const t = initInTerminal([dir]);
    await t.waitFor(/\? Plugin name: \(wz\)/);
    // An invalid name is refused in place; the prompt stays.
    t.type('Bad Name');
    t.press('Enter');
    await t.waitFor(/The name may hold only lowercase letters/);
    for (let i = 0; i < 8; i++) t.press('Backspace');
    t.type('wizard-bot');
    t.press('Enter');
    await t.waitFor(/\? Plugin type:[\s\S]*❯ EVENT_HANDLER[\s\S]*DATA_PROVIDER/);
    t.press('Down', 'Down', 'Enter');
    await t.waitFor(/\? Language:[\s\S]*❯ TypeScript[\s\S]*Python/);
    t.press('Down', 'Enter');
    // The type's events come checked; space toggles PLUGIN_INSTALLED (the first) on as well.
    const events = await t.waitFor(/\? Events to receive:[\s\S]*REPOSITORY_FILE_REMOVED/);
    expect(events).toMatch(/◯ PLUGIN_INSTALLED/);
    expect(events).toMatch(/◉ REPOSITORY_FILE_ADDED/);
    t.press('Space', 'Enter');
    const scopes = await t.waitFor(
      /\? Scopes of its installation tokens:[\s\S]*REPOSITORY_FILES_READ/,
    );
    expect(scopes).toMatch(/◉ REPOSITORY_FILES_READ/);
    expect(scopes).toMatch(/◯ AGENT_MESSAGE_WRITE/);
    t.press('Enter');
    await t.waitFor(/\? Port of the webhook server: \(3000\)/);
    t.type('4321');
    t.press('Enter');
    expect(await t.waitForExit(60_000)).toBe(0);
    const done = t.screen();
    expect(done).toContain(
      '✔ Events to receive: PLUGIN_INSTALLED, REPOSITORY_FILE_ADDED, REPOSITORY_FILE_REMOVED',
    );
    expect(done).toContain(`Created the Python DATA_PROVIDER plugin "wizard-bot" in ${dir}`);

    const manifest = await loadManifest(join(dir, 'plugsmith.json'), {});
    expect(manifest.plugin).toMatchObject({
      name: 'wizard-bot',
      type: 'DATA_PROVIDER',
      events: ['PLUGIN_INSTALLED', 'REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
      scopes: ['REPOSITORY_FILES_READ'],
      webhookUrl: 'http://127.0.0.1:4321/webhook',
    });
    expect(manifest.dev).toEqual({ command: 'python3 -m plugin', watch: ['*.py'] });
    expect(await readFile(join(dir, 'plugin/__init__.py'), 'utf8')).toContain('wizard-bot');
    await expect(readFile(join(dir, 'package.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('asks only for what the flags leave out', async () => {
    const dir = join(root, 'partial');
    const t = initInTerminal([dir, '--name', 'partial-app', '--type', 'APP', '--port', '3100']);
    const events = await t.waitFor(/\? Events to receive:[\s\S]*REPOSITORY_FILE_REMOVED/);
    expect(events).not.toContain('Plugin name');
    expect(events).not.toContain('Plugin type');
    // A type given as a flag means TypeScript (as before there was a choice).
    expect(events).not.toContain('Language');
    expect(events).toMatch(/◉ PLUGIN_INSTALLED/);
    t.press('Enter');
    await t.waitFor(/\? Scopes of its installation tokens:/);
    t.press('Enter');
    // init packs this plugsmith into the project (npm pack)
    expect(await t.waitForExit(60_000)).toBe(0);
    const done = t.screen();
    expect(done).not.toContain('Port of the webhook server');
    const manifest = await loadManifest(join(dir, 'plugsmith.json'), {});
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).name).toBe('partial-app');
    expect(manifest.plugin).toMatchObject({
      name: 'partial-app',
      type: 'APP',
      events: ['PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED'],
      scopes: [],
      webhookUrl: 'http://127.0.0.1:3100/webhook',
    });
  });

  it('refuses a non-empty folder before asking anything', async () => {
    const dir = join(root, 'occupied');
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const t = initInTerminal([dir]);
    expect(await t.waitForExit()).toBe(2);
    const done = t.screen();
    expect(done).toContain('is not empty');
    expect(done).not.toContain('Plugin name');
  });
});
