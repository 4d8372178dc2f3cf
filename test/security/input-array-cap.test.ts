import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { MAX_JSON_ARRAY_ITEMS, parseJsonBody } from '../../emulator/json-body.js';

import { call, emulator } from '../kit/index.js';
import { emulatorInternals } from '../../emulator/internals.js';

// The validators report every problem (allErrors), so an array far past its schema's maxItems was
// walked item by item before the 400: plugin `events` with 200,000 items (400 KB) held the
// emulator 5.8 s, `files` of generate-upload-url with 150,000 items 5.7 s. Bodies are now refused
// at the parse step, before any validation, when an array holds more than MAX_JSON_ARRAY_ITEMS.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

function expectCapped(res: { status: number; body: any }, path: string[]) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
  expect(res.body.error.message).toContain(`more than ${MAX_JSON_ARRAY_ITEMS} items`);
  expect(res.body.error.details[0]).toMatchObject({ code: 'too_many_items', path });
}

describe('arrays in bodies are capped at the parse step', () => {
  it("a plugin's 200,000 events are a 400 naming the path and the cap (not a maxItems walk)", async () => {
    const res = await call(emu.url, 'POST', '/api/orgs/org_dev/plugins', {
      token: emu.token!,
      body: { name: 'x', type: 'EVENT_HANDLER', scopes: [], events: Array(200_000).fill('0') },
    });
    expectCapped(res, ['events']);
  });

  it('files of generate-upload-url past the cap are a 400 naming the path', async () => {
    const files = Array.from({ length: MAX_JSON_ARRAY_ITEMS + 1 }, () => ({ fileName: 'a.txt' }));
    const res = await call(emu.url, 'POST', '/api/generate-upload-url', {
      token: emu.token!,
      body: { files, parentId: 'org_dev', parentType: 'ORG' },
    });
    expectCapped(res, ['files']);
  });

  it('a nested array is named by its full path; an array at the cap passes the parse step', () => {
    expect(() =>
      parseJsonBody(
        JSON.stringify({ inputs: { rows: [[...Array(MAX_JSON_ARRAY_ITEMS + 1).keys()]] } }),
      ),
    ).toThrow(/inputs\.rows\.0/);
    expect(parseJsonBody(JSON.stringify({ rows: Array(MAX_JSON_ARRAY_ITEMS).fill(1) }))).toEqual({
      rows: Array(MAX_JSON_ARRAY_ITEMS).fill(1),
    });
  });

  it('the store import takes collections longer than the cap', async () => {
    const exported = await call(emu.url, 'GET', '/_emulator/export', { headers: emu.adminHeaders });
    expect(exported.status).toBe(200);
    const data = exported.body.data ?? exported.body;
    const now = new Date().toISOString();
    const agents = Array.from({ length: MAX_JSON_ARRAY_ITEMS + 5 }, (_, i) => ({
      id: `agent_bulk_${i}`,
      orgId: emu.orgId,
      name: `Bulk ${i}`,
      createdAt: now,
      updatedAt: now,
    }));
    data.collections.agents = [...(data.collections.agents ?? []), ...agents];
    const imported = await call(emu.url, 'POST', '/_emulator/import', {
      headers: emu.adminHeaders,
      body: data,
    });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(200);
    expect(emulatorInternals(emu).db.agents.size).toBeGreaterThan(MAX_JSON_ARRAY_ITEMS);
  });
});
