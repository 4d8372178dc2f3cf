import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { jsonFile, ORG, OWNER_TOKEN, useCliEnv } from '../kit/cli-env.js';

const t = useCliEnv();

async function status(url: string, token: string): Promise<number> {
  const response = await request(url, { headers: { authorization: `Bearer ${token}` } });
  await response.body.dump();
  return response.statusCode;
}

describe('plugsmith emulator export, reset, import', () => {
  test('round trip: export, reset to the seed, import brings every record back and tokens keep working', async () => {
    const url = t.emu.url;
    const plugin = await t.json([
      'plugins',
      'create',
      '--org',
      ORG,
      '--name',
      'Kept',
      '--type',
      'APP',
    ]);
    const token = (await t.json(['tokens', 'create', '--name', 'ci'])) as { token: string };
    expect(await status(`${url}/api/plugins/${plugin.id}`, token.token)).toBe(200);

    const file = join(t.dir, 'export.json');
    const exported = await t.cli(['emulator', 'export', file, '--base-url', url]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(
      /^Exported \d+ records from http:\/\/127\.0\.0\.1:\d+ to .*export\.json\.$/m,
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const content = JSON.parse(await readFile(file, 'utf8'));
    expect(content).toMatchObject({ format: 'plugsmith-emulator-export', version: 1 });
    expect(content.collections.plugins.map((p: { id: string }) => p.id)).toContain(plugin.id);
    // Secrets are stored, and exported, as hashes only.
    expect(JSON.stringify(content.collections.tokens)).not.toContain(token.token);

    const refused = await t.cli(['emulator', 'reset', '--base-url', url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const reset = await t.json(['emulator', 'reset', '--base-url', url, '--yes']);
    expect(reset).toEqual({ url, reset: true });
    expect(await status(`${url}/api/plugins/${plugin.id}`, OWNER_TOKEN)).toBe(404);
    expect(await status(`${url}/api/plugins/${plugin.id}`, token.token)).toBe(401);

    const imported = await t.json(['emulator', 'import', file, '--base-url', url, '--yes']);
    expect(imported).toMatchObject({
      imported: true,
      counts: { plugins: content.collections.plugins.length },
    });
    expect(await status(`${url}/api/plugins/${plugin.id}`, token.token)).toBe(200);
    expect((await t.json(['plugins', 'get', plugin.id])).name).toBe('Kept');
  });

  test('import refuses files that are not exports, with the reason', async () => {
    const url = t.emu.url;
    const notJson = await jsonFile(t.dir, 'broken.json', '{ nope');
    const other = await jsonFile(t.dir, 'other.json', { users: [] });
    const unknownCollection = await jsonFile(t.dir, 'unknown.json', {
      format: 'plugsmith-emulator-export',
      version: 1,
      collections: { widgets: [] },
    });
    const duplicate = await jsonFile(t.dir, 'dup.json', {
      format: 'plugsmith-emulator-export',
      version: 1,
      collections: { users: [{ id: 'u1' }, { id: 'u1' }] },
    });
    const [a, b, c, d, missing] = await Promise.all([
      t.cli(['emulator', 'import', notJson, '--base-url', url, '--yes']),
      t.cli(['emulator', 'import', other, '--base-url', url, '--yes']),
      t.cli(['emulator', 'import', unknownCollection, '--base-url', url, '--yes']),
      t.cli(['emulator', 'import', duplicate, '--base-url', url, '--yes']),
      t.cli(['emulator', 'import', join(t.dir, 'nothing.json'), '--base-url', url, '--yes']),
    ]);
    expect(a.code).toBe(5);
    expect(a.stderr).toContain('not valid JSON');
    expect(b.code).toBe(5);
    expect(b.stderr).toContain('not an emulator export');
    expect(c.code).toBe(5);
    expect(c.stderr).toContain('widgets');
    expect(d.code).toBe(5);
    expect(d.stderr).toContain('two records with id u1');
    expect(missing.code).toBe(4);
    // Nothing was replaced by the refused imports.
    expect(await status(`${url}/api/orgs/${ORG}/plugins`, OWNER_TOKEN)).toBe(200);
  });

  test("without --base-url and without a running emulator, the profile's URL is used", async () => {
    const file = join(t.dir, 'by-profile.json');
    const result = await t.cli(['emulator', 'export', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(t.emu.url);
  });
});
