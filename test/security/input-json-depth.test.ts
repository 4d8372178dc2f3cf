import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { MAX_JSON_DEPTH } from '../../emulator/json-body.js';
import { emulator } from '../kit/index.js';

// Bodies nested a few thousand levels fit in the 1 MB body limit and later break JSON.stringify
// (the store's journal). Each API refuses them when it parses them, with the path where they go too deep.
let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

/** `{"name":"deep","extra":[[[…{}…]]]}` nested `levels` levels below `extra`. */
function nested(
  levels: number,
  head = '{"name":"deep","characterId":"char_nova","extra":',
): string {
  return `${head}${'['.repeat(levels)}{}${']'.repeat(levels)}}`;
}

function adminHeaders(): Record<string, string> {
  // The admin credential (added by the admin surface's guard) is sent when the emulator has one.
  const token = (emu as unknown as { adminToken?: string }).adminToken;
  return token ? { 'x-plugsmith-admin': token } : {};
}

async function post(
  url: string,
  authorization: string | undefined,
  body: string,
  extra: Record<string, string> = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (authorization) headers.authorization = authorization;
  const res = await request(url, { method: 'POST', headers, body });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('JSON nesting limit', () => {
  const deep = nested(4_150);
  const cases = [
    ['management API', () => `${emu.url}/api/orgs/org_dev/repositories`, () => emu.token!, {}],
    ['messaging API', () => `${emu.messagingUrl}/conversations`, () => `Bearer ${emu.apiKey}`, {}],
    ['admin API', () => `${emu.url}/_emulator/agents`, () => undefined, adminHeaders],
  ] as const;

  for (const [api, url, auth, extra] of cases) {
    it(`the ${api} refuses a body nested 4,150 levels with a 400 naming the path`, async () => {
      const res = await post(url(), auth(), deep, typeof extra === 'function' ? extra() : extra);
      expect(res.status).toBe(400);
      expect(res.body.error.error).toBe('VALIDATION_ERROR');
      const [first] = res.body.error.details;
      expect(first.code).toBe('too_deep');
      // The path leads from the root into `extra` and down the arrays to where the limit is passed.
      expect(first.path[0]).toBe('extra');
      expect(first.path).toHaveLength(MAX_JSON_DEPTH);
      expect(first.path.slice(1).every((p: string) => p === '0')).toBe(true);
      expect(res.body.error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    });
  }

  it('a body exactly at the limit is parsed (and then judged by the route as usual)', async () => {
    // Root object (1) + MAX_JSON_DEPTH - 2 arrays + the innermost {} = MAX_JSON_DEPTH levels.
    const res = await post(
      `${emu.url}/api/orgs/org_dev/repositories`,
      emu.token!,
      nested(MAX_JSON_DEPTH - 2),
    );
    expect(res.body.error?.details?.[0]?.code).not.toBe('too_deep');
    const over = await post(
      `${emu.url}/api/orgs/org_dev/repositories`,
      emu.token!,
      nested(MAX_JSON_DEPTH - 1),
    );
    expect(over.body.error.details[0].code).toBe('too_deep');
  });

  it('the GET body of /api/generate-upload-url has the same limit', async () => {
    const res = await request(`${emu.url}/api/generate-upload-url`, {
      method: 'GET',
      headers: { authorization: emu.token!, 'content-type': 'application/json' },
      body: nested(500, '{"files":[{"fileName":"a.txt"}],"x":'),
    });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as any).error.details[0].code).toBe('too_deep');
  });
});

describe('the store import', () => {
  it('takes back an export of the deepest records the API accepts, and refuses one nested past twice the limit', async () => {
    // A schema as deep as a plugin body may carry: root, inputsSchema, then nested `items`.
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_JSON_DEPTH - 2; i++) schema = { items: schema };
    const created = await post(
      `${emu.url}/api/orgs/org_dev/plugins`,
      emu.token!,
      JSON.stringify({ name: 'deep schema', type: 'APP', inputsSchema: schema }),
    );
    expect(created.status).toBe(201);
    const exported = await request(`${emu.url}/_emulator/export`, { headers: adminHeaders() });
    expect(exported.statusCode).toBe(200);
    const file = (await exported.body.json()) as any;
    const document = file.data ?? file;
    const imported = await post(
      `${emu.url}/_emulator/import`,
      undefined,
      JSON.stringify(document),
      adminHeaders(),
    );
    expect(imported.status).toBe(200);
    const tooDeep = await post(
      `${emu.url}/_emulator/import`,
      undefined,
      nested(
        2 * MAX_JSON_DEPTH,
        '{"format":"plugsmith-emulator-export","version":1,"collections":{},"x":',
      ),
      adminHeaders(),
    );
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.details[0].code).toBe('too_deep');
  });
});
