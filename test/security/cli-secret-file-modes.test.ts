import {
  chmod,
  lstat,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_TOKEN, ORG, useCliEnv } from '../kit/cli-env.js';

// Files the CLI writes that hold secrets (an export holds `whsec_` secrets; the config file and
// the emulator state file hold tokens) are owner-only however they existed before.
const t = useCliEnv();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-secret-modes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('files that hold secrets are 0600', () => {
  it('emulator export refuses an existing file unasked; with --force, onto a 0644 file, leaves it 0600 with the secrets, and no temporary file behind', async () => {
    await t.api.plugins.createInOrg(ORG, { name: 'moded', type: 'APP' } as never);
    const file = join(dir, 'export.json');
    await writeFile(file, 'old contents');
    await chmod(file, 0o644);
    // Unasked, an existing file is kept as it is.
    const refused = await t.cli(['emulator', 'export', file, '--base-url', t.emu.url]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('export.json exists: pass --force to overwrite it');
    expect(await readFile(file, 'utf8')).toBe('old contents');
    const result = await t.cli(['emulator', 'export', file, '--base-url', t.emu.url, '--force']);
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('whsec_');
    expect((await mode(file)).toString(8)).toBe('600');
    expect((await readdir(dir)).filter((name) => name.includes('export.json'))).toEqual([
      'export.json',
    ]);
  });

  it('two exports racing for one new name: one writes it, the other is refused, whatever their order', async () => {
    const file = join(dir, 'raced-export.json');
    const runs = await Promise.all(
      [0, 1].map(() => t.cli(['emulator', 'export', file, '--base-url', t.emu.url])),
    );
    expect(runs.map((r) => r.code).sort()).toEqual([0, 2]);
    expect(runs.find((r) => r.code === 2)!.stderr).toContain(
      'raced-export.json exists: pass --force to overwrite it',
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      format: 'plugsmith-emulator-export',
    });
  });

  it('emulator export onto a link replaces the link and never writes through it', async () => {
    const elsewhere = join(dir, 'elsewhere.txt');
    await writeFile(elsewhere, 'not yours');
    await chmod(elsewhere, 0o644);
    const file = join(dir, 'linked-export.json');
    await symlink(elsewhere, file);
    const result = await t.cli(['emulator', 'export', file, '--base-url', t.emu.url, '--force']);
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(elsewhere, 'utf8')).toBe('not yours');
    expect((await lstat(file)).isFile()).toBe(true);
    expect((await mode(file)).toString(8)).toBe('600');
  });

  it('login onto a config file left 0644 leaves it 0600', async () => {
    const configDir = await mkdtemp(join(dir, 'cfg-'));
    const config = join(configDir, 'config.json');
    await writeFile(config, JSON.stringify({ profiles: {} }));
    await chmod(config, 0o644);
    const login = await t.cli(
      [
        'login',
        '--base-url',
        t.emu.url,
        '--messaging-url',
        t.emu.messagingUrl,
        '--token',
        '-',
        '--org',
        ORG,
      ],
      { PLUGSMITH_CONFIG_DIR: configDir },
      `${OWNER_TOKEN}\n`,
    );
    expect(login.code, login.stderr).toBe(0);
    expect(await readFile(config, 'utf8')).toContain(OWNER_TOKEN);
    expect((await mode(config)).toString(8)).toBe('600');
  });
});
