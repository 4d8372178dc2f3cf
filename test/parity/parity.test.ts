import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../kit/index.js';
import { spawnedCli } from '../kit/spawn.js';
import { standIn, type StandIn, type StandInChange } from '../kit/stand-in.js';

// `parity record` against a stand-in for the real platform (an emulator behind a proxy with no
// /_emulator), then `parity check` against the in-memory emulator it starts itself.

async function record(platform: StandIn) {
  const dir = await tempDir('plugsmith-parity-');
  const cli = await spawnedCli({
    PLUGSMITH_TOKEN: platform.token,
    PLUGSMITH_API_KEY: platform.apiKey,
  });
  const file = join(dir, 'parity.json');
  const recorded = await cli.run([
    'parity',
    'record',
    '-o',
    file,
    '--base-url',
    platform.url,
    '--messaging-url',
    platform.messagingUrl,
    '--org',
    platform.orgId,
    '--character',
    platform.characterId,
    '--other-org',
    platform.otherOrgId,
  ]);
  expect(recorded.stderr).not.toContain(platform.token);
  expect(recorded.code, recorded.stderr).toBe(0);
  return { cli, file, recorded, text: await readFile(file, 'utf8') };
}

async function recordAndCheck(change?: StandInChange) {
  const platform = await standIn(change);
  const { cli, file, text } = await record(platform);
  const json = await cli.run(['parity', 'check', file, '--json']);
  return { platform, cli, file, text, report: JSON.parse(json.stdout), jsonCode: json.code };
}

describe('parity record and check', () => {
  it('finds no difference between an unchanged stand-in and the emulator, never calls /_emulator, and writes no credential, id or text', async () => {
    const { platform, text, report, jsonCode } = await recordAndCheck();
    expect(jsonCode, JSON.stringify(report.differences)).toBe(0);
    expect(report.differences).toEqual([]);
    expect(report.notReplayed).toEqual([]);
    expect(report.notRecorded).toEqual([]);
    expect(platform.adminRequests).toEqual([]);
    const file = JSON.parse(text);
    const steps = file.exchanges.map((e: { step: string }) => e.step);
    for (const step of [
      'plugins.create',
      'plugins.list.cursor',
      'errors.forbidden-org',
      'errors.unauthorized',
      'uploads.access',
      'messages.list',
      'conversations.events.last-packet',
    ])
      expect(steps).toContain(step);
    const statuses = Object.fromEntries(
      file.exchanges.map((e: { step: string; status: number }) => [e.step, e.status]),
    );
    expect(statuses['errors.invalid-query']).toBe(400);
    expect(statuses['errors.unauthorized']).toBe(401);
    expect(statuses['errors.forbidden-org']).toBe(403);
    expect(statuses['errors.not-found']).toBe(404);
    // The documented behaviours the journey touched are named.
    const behaviourDoc = await readFile(
      join(import.meta.dirname, '../../docs/emulator-behaviour.md'),
      'utf8',
    );
    expect(report.behaviours.length).toBeGreaterThan(5);
    for (const { section } of report.behaviours) expect(behaviourDoc).toContain(`**${section}.`);
    await expectNoValueOf(platform, text);
  });

  it('names exactly the one changed status (200 instead of 201 on creating a plugin) and exits 1', async () => {
    const { platform, cli, file, report, jsonCode } = await recordAndCheck({
      kind: 'status',
      method: 'POST',
      path: /^\/api\/orgs\/[^/]+\/plugins$/,
      whenStatus: 201,
      status: 200,
    });
    const checked = await cli.run(['parity', 'check', file]);
    expect(platform.changed()).toBeGreaterThan(0);
    expect(checked.code).toBe(1);
    expect(jsonCode).toBe(1);
    expect(report.differences).toEqual([
      {
        step: 'plugins.create',
        method: 'POST',
        pathTemplate: '/api/orgs/:orgId/plugins',
        kind: 'status',
        platform: '200',
        emulator: '201',
      },
    ]);
    expect(checked.stdout).toMatch(/1 difference\b/);
    expect(checked.stdout).toMatch(
      /plugins\.create\s+POST \/api\/orgs\/:orgId\/plugins\s+status\s+200\s+201/,
    );
  });

  it('names a field whose type the platform changed, and one it removed', async () => {
    const typed = await recordAndCheck({
      kind: 'value',
      method: 'GET',
      path: /^\/api\/plugins\/[^/]+$/,
      field: 'data.isPublic',
      value: 'false',
    });
    expect(typed.report.differences).toEqual([
      expect.objectContaining({
        step: 'plugins.get',
        kind: 'type',
        path: 'data.isPublic',
        platform: 'string',
        emulator: 'boolean',
      }),
    ]);
    const removed = await recordAndCheck({
      kind: 'remove',
      method: 'GET',
      path: /^\/conversations\/[^/]+$/,
      field: 'data.characterId',
    });
    expect(removed.report.differences).toEqual([]);
    expect(removed.report.extras).toContainEqual({
      step: 'conversations.get',
      path: 'data.characterId',
      type: 'string',
    });
  });
});

describe('parity check', () => {
  it('names a stable value the platform answers differently (webhookUrlIsVerified after a webhook change)', async () => {
    const { report, jsonCode } = await recordAndCheck({
      kind: 'value',
      method: 'PUT',
      path: /^\/api\/plugins\/[^/]+$/,
      field: 'data.webhookUrlIsVerified',
      value: true,
    });
    expect(jsonCode).toBe(1);
    expect(report.differences).toEqual([
      expect.objectContaining({
        step: 'plugins.update-webhook',
        kind: 'value',
        path: 'data.webhookUrlIsVerified',
        platform: 'true',
        emulator: 'false',
      }),
    ]);
  });

  it('refuses a file that is not a parity file, naming what is wrong, and a missing one', async () => {
    const dir = await tempDir('plugsmith-parity-');
    const cli = await spawnedCli();
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({ version: 9, exchanges: [{ step: 1, status: 'x', shape: [] }] }),
    );
    const refused = await cli.run(['parity', 'check', bad]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('version: this plugsmith reads version 1');
    expect(refused.stderr).toContain('exchanges[0].shape');
    expect(refused.stderr).toContain('exchanges[0].method: must be a string');
    const missing = await cli.run(['parity', 'check', join(dir, 'none.json')]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('plugsmith parity record');
  });
});

/** The recording holds none of the credentials, ids, names and texts the platform held after the run. */
async function expectNoValueOf(platform: StandIn, text: string): Promise<void> {
  const seen = [
    platform.token,
    platform.apiKey,
    platform.orgId,
    platform.characterId,
    platform.otherOrgId,
    'repo_real',
  ];
  const exported = await fetch(`${platform.emulator.url}/_emulator/export`, {
    headers: platform.emulator.adminHeaders,
  });
  const snapshot = JSON.stringify(await exported.json());
  for (const match of snapshot.matchAll(
    /"(\w*[iI]d|token|name|content|webhookSecret|fileName|description|title|errorMessage)":"([^"]{6,})"/g,
  ))
    seen.push(match[2]);
  expect(seen.length).toBeGreaterThan(20);
  for (const value of new Set(seen)) expect(text, value).not.toContain(value);
  expect(text).not.toMatch(/plugsmith-parity-[0-9a-f]{8}/);
  expect(text).not.toMatch(/ps[tki]_/);
}
