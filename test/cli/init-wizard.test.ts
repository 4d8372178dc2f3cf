import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-process.js';
import { terminal } from '../kit/terminal.js';
import { loadManifest } from '../../src/manifest/load.js';

// The init wizard in a real terminal: tmux runs the built CLI with CI unset, keys answer each prompt.

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'plugsmith-wizard-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The CLI in the terminal, CI unset so it may prompt; prints its exit code and then waits to be read. */
function initCommand(args: string): string {
  return `env -u CI NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} init ${args}; echo "EXIT=$?"; sleep 600`;
}

describe('plugsmith init wizard (tmux)', () => {
  it('asks name, type, language, events, scopes and port, then writes the project', async () => {
    const dir = join(root, 'wz');
    const t = await terminal(initCommand(JSON.stringify(dir)));
    await t.waitFor(/\? Plugin name: \(wz\)/);
    // An invalid name is refused in place; the prompt stays.
    await t.keys('Bad Name', 'Enter');
    await t.waitFor(/The name may hold only lowercase letters/);
    for (let i = 0; i < 8; i++) await t.keys('BSpace');
    await t.keys('wizard-bot', 'Enter');
    await t.waitFor(/\? Plugin type:[\s\S]*❯ EVENT_HANDLER[\s\S]*DATA_PROVIDER/);
    await t.keys('Down', 'Down', 'Enter');
    await t.waitFor(/\? Language:[\s\S]*❯ TypeScript[\s\S]*Python/);
    await t.keys('Down', 'Enter');
    // The type's events come checked; space toggles PLUGIN_INSTALLED (the first) on as well.
    const events = await t.waitFor(/\? Events to receive:[\s\S]*REPOSITORY_FILE_REMOVED/);
    expect(events).toMatch(/◯ PLUGIN_INSTALLED/);
    expect(events).toMatch(/◉ REPOSITORY_FILE_ADDED/);
    await t.keys('Space', 'Enter');
    const scopes = await t.waitFor(
      /\? Scopes of its installation tokens:[\s\S]*REPOSITORY_FILES_READ/,
    );
    expect(scopes).toMatch(/◉ REPOSITORY_FILES_READ/);
    expect(scopes).toMatch(/◯ AGENT_MESSAGE_WRITE/);
    await t.keys('Enter');
    await t.waitFor(/\? Port of the webhook server: \(3000\)/);
    await t.keys('4321', 'Enter');
    const done = await t.waitFor(/EXIT=\d+/, 60_000);
    expect(done).toContain('EXIT=0');
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
    const t = await terminal(
      initCommand(`${JSON.stringify(dir)} --name partial-app --type APP --port 3100`),
    );
    const events = await t.waitFor(/\? Events to receive:[\s\S]*REPOSITORY_FILE_REMOVED/);
    expect(events).not.toContain('Plugin name');
    expect(events).not.toContain('Plugin type');
    // A type given as a flag means TypeScript (as before there was a choice).
    expect(events).not.toContain('Language');
    expect(events).toMatch(/◉ PLUGIN_INSTALLED/);
    await t.keys('Enter');
    await t.waitFor(/\? Scopes of its installation tokens:/);
    await t.keys('Enter');
    const done = await t.waitFor(/EXIT=\d+/, 60_000); // init packs this plugsmith into the project (npm pack)
    expect(done).toContain('EXIT=0');
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
    const t = await terminal(initCommand(JSON.stringify(dir)));
    const done = await t.waitFor(/EXIT=\d+/);
    expect(done).toContain('EXIT=2');
    expect(done).toContain('is not empty');
    expect(done).not.toContain('Plugin name');
  });
});
