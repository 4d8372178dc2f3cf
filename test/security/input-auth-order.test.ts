import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { emulator } from '../kit/index.js';

// Authentication comes before validation on every /api route: a caller without a token learns
// that it needs one (401), and nothing else (not whether an id exists, nor what a body lacks).
let emu: Emulator;
let fileId: string;
beforeAll(async () => {
  emu = await emulator();
  const res = await request(`${emu.url}/api/generate-upload-url`, {
    method: 'POST',
    headers: { authorization: emu.token!, 'content-type': 'application/json' },
    body: JSON.stringify({ files: [{ fileName: 'a.txt', contentType: 'text/plain' }] }),
  });
  fileId = ((await res.body.json()) as any).data.files[0].fileRecord.id;
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Every /api route but the marketplace (which lists public plugins without a token). */
const ROUTES: Array<[Method, string]> = [
  ['POST', '/api/tokens'],
  ['POST', '/api/plugins'],
  ['POST', '/api/orgs/org_dev/plugins'],
  ['GET', '/api/orgs/org_dev/plugins'],
  ['GET', '/api/plugins/plg_x'],
  ['PUT', '/api/plugins/plg_x'],
  ['DELETE', '/api/plugins/plg_x'],
  ['POST', '/api/plugins/plg_x/verify-webhook'],
  ['POST', '/api/plugins/plg_x/webhook-secret/rotate'],
  ['GET', '/api/plugins/plg_x/actions'],
  ['POST', '/api/plugins/plg_x/actions'],
  ['GET', '/api/plugins/plg_x/actions/a'],
  ['PUT', '/api/plugins/plg_x/actions/a'],
  ['DELETE', '/api/plugins/plg_x/actions/a'],
  ['GET', '/api/plugins/plg_x/external-events'],
  ['POST', '/api/plugins/plg_x/external-events'],
  ['GET', '/api/plugins/plg_x/external-events/e'],
  ['PUT', '/api/plugins/plg_x/external-events/e'],
  ['DELETE', '/api/plugins/plg_x/external-events/e'],
  ['POST', '/api/repositories'],
  ['POST', '/api/orgs/org_dev/repositories'],
  ['GET', '/api/repositories/repo_x'],
  ['GET', '/api/orgs/org_dev/repositories'],
  ['POST', '/api/repositories/repo_x/data-providers'],
  ['GET', '/api/repositories/repo_x/data-providers'],
  ['DELETE', '/api/repositories/repo_x/data-providers/pi_x'],
  ['POST', '/api/agents/agent_x/plugins'],
  ['GET', '/api/agents/agent_x/plugins'],
  ['DELETE', '/api/agents/agent_x/plugins/pi_x'],
  ['POST', '/api/apps/app_x/plugins'],
  ['GET', '/api/apps/app_x/plugins'],
  ['DELETE', '/api/apps/app_x/plugins/pi_x'],
  ['POST', '/api/agents/agent_x/conversations/conv_x/messages'],
  ['POST', '/api/repositories/repo_x/files'],
  ['GET', '/api/repositories/repo_x/files'],
  ['DELETE', '/api/repositories/repo_x/files/file_x'],
  ['GET', '/api/generate-upload-url'],
  ['POST', '/api/generate-upload-url'],
  ['PATCH', '/api/status'],
  ['GET', '/api/'],
  ['GET', '/api/access/file_x'],
];

async function anonymous(method: Method, path: string, body?: string) {
  const headers: Record<string, string> =
    body === undefined ? {} : { 'content-type': 'application/json' };
  const res = await request(`${emu.url}${path}`, { method, headers, body });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('authentication before validation', () => {
  it('every /api route answers 401 to a caller without a token, even with a malformed body or a bad parameter', async () => {
    const wrong: string[] = [];
    for (const [method, path] of ROUTES) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{"not json';
      for (const [variant, res] of [
        ['malformed body', await anonymous(method, path, body)],
        [
          'invalid body',
          await anonymous(
            method,
            path,
            method === 'GET' || method === 'DELETE' ? undefined : '{"unexpected":[1,2,3]}',
          ),
        ],
        ['overlong id', await anonymous(method, path.replace(/_x\b/, `_${'x'.repeat(300)}`), body)],
      ] as const) {
        if (res.status !== 401 || res.body.error?.error !== 'UNAUTHORIZED')
          wrong.push(`${method} ${path} (${variant}): ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the upload routes answer 401 before looking at the body (the GET form reads its body itself)', async () => {
    const get = await request(`${emu.url}/api/generate-upload-url`, {
      method: 'GET',
      headers: { 'content-type': 'application/json' },
      body: '{"files":[]}',
    });
    expect(get.statusCode).toBe(401);
    await get.body.dump();
    const post = await anonymous(
      'POST',
      '/api/generate-upload-url',
      '{"files":[{"fileName":"a/b"}]}',
    );
    expect(post.status).toBe(401);
    const status = await anonymous(
      'PATCH',
      '/api/status',
      '{"fileId":"file_x","status":"NOT_A_STATUS"}',
    );
    expect(status.status).toBe(401);
  });

  it('/api/access/:fileId tells an unauthenticated caller nothing about which ids exist', async () => {
    const existing = await anonymous('GET', `/api/access/${fileId}`);
    const missing = await anonymous('GET', '/api/access/file_does_not_exist');
    expect(existing.status).toBe(401);
    expect(missing.status).toBe(401);
    expect(existing.body).toEqual(missing.body);
    // With a query that fails validation, too.
    expect((await anonymous('GET', `/api/access/${fileId}?expiresIn=abc`)).status).toBe(401);
  });

  it('the marketplace stays open; an unknown /api path without a token is still a 404', async () => {
    expect((await anonymous('GET', '/api/plugins/marketplace')).status).toBe(200);
    expect((await anonymous('GET', '/api/no/such/route')).status).toBe(404);
  });
});

describe('the messaging API checks the API key first too', () => {
  it('a missing key is 401 even with an overlong id or a malformed body', async () => {
    for (const [method, path, body] of [
      ['GET', `/conversations/${'c'.repeat(300)}/messages`, undefined],
      ['POST', '/conversations', '{"not json'],
      ['POST', '/conversations/conv_x/messages', '{"content":5}'],
    ] as const) {
      const res = await request(`${emu.messagingUrl}${path}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body,
      });
      expect(res.statusCode, `${method} ${path}`).toBe(401);
      await res.body.dump();
    }
  });
});
