import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { rawRequest } from '../kit/raw-http.js';
import { ownAdminTarget } from '../../emulator/admin/self-target.js';
import { emulator } from '../kit/index.js';

// "The /api auth hook can be skipped" (issue 24, item 2): the hook tested the raw URL
// (`request.url.startsWith('/api')`) while the router decodes it, so `POST /%61pi/plugins` and the
// absolute form `POST http://host/api/plugins` reached the routes without it: a caller with no
// token had its body parsed and validated (a 400, not a 401). Guards now go by the route that
// matched. Requests are written on a raw socket: HTTP clients normalise these paths away.

let emu: Emulator;
let authority: string;
beforeAll(async () => {
  emu = await emulator();
  authority = new URL(emu.url).host;
});

const json = { 'content-type': 'application/json' };

/** Spellings of `/api/plugins` that the router may serve as that route (or refuse, as 404). */
const spellings = [
  '/%61pi/plugins',
  '/api/%70lugins',
  '/%61%70%69/plugins',
  'http://HOST/api/plugins',
  'HTTP://HOST/%61pi/plugins',
  `http://elsewhere.example/api/plugins`,
  '//api/plugins',
  '/api//plugins',
  '/api/../api/plugins',
  '/x/../api/plugins',
  '/API/plugins',
  '/Api/plugins',
  '/api/plugins?x=/',
  '/api/plugins/',
];

describe('/api: no spelling of a path reaches a route without the token check', () => {
  it.each(spellings)(
    'POST %s without a token is a 401 (or no route at all), never validated',
    async (spelling) => {
      const target = spelling.replace('HOST', authority);
      const res = await rawRequest(emu.url, 'POST', target, { headers: json, body: '{}' });
      expect([401, 404], `${target}: ${res.status} ${res.body}`).toContain(res.status);
      if (res.status === 401) expect(JSON.parse(res.body).error.error).toBe('UNAUTHORIZED');
    },
  );

  it('the decoded spellings are the route itself: 401 exactly', async () => {
    for (const target of ['/%61pi/plugins', `http://${authority}/api/plugins`, '/api/%70lugins']) {
      const res = await rawRequest(emu.url, 'POST', target, { headers: json, body: '{}' });
      expect(res.status, target).toBe(401);
    }
  });

  it('with a token, a decoded spelling is served as the route (the hook ran and found the caller)', async () => {
    const res = await rawRequest(emu.url, 'POST', '/%61pi/plugins', {
      headers: { ...json, authorization: emu.token! },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.error).toBe('VALIDATION_ERROR');
  });

  it('the open route stays open however spelled', async () => {
    const res = await rawRequest(emu.url, 'GET', '/%61pi/plugins/marketplace');
    expect(res.status).toBe(200);
  });

  it('a URL the router refuses (malformed escape, overlong parameter) under any spelling of /api is a 401 first', async () => {
    for (const target of [
      '/%61pi/plugins/%zz',
      `http://${authority}/api/plugins/%zz`,
      '/%61pi/plugins/' + 'p'.repeat(600),
    ]) {
      const res = await rawRequest(emu.url, 'GET', target);
      expect(res.status, `${target.slice(0, 60)}: ${res.body}`).toBe(401);
    }
  });
});

describe('/_emulator: the admin guard goes by the route too', () => {
  const adminTargets = [
    '/_emulator/export',
    '/%5f%65mulator/export',
    '/_emulator/%65xport',
    'http://HOST/_emulator/export',
    '/_emulator//export',
    '/_EMULATOR/export',
  ];
  it.each(adminTargets)('GET %s without the admin credential is refused', async (spelling) => {
    const target = spelling.replace('HOST', authority);
    const res = await rawRequest(emu.url, 'GET', target);
    expect([401, 404], `${target}: ${res.status} ${res.body.slice(0, 200)}`).toContain(res.status);
  });

  it('POST /_emulator/reset, spelled otherwise, is refused without the credential', async () => {
    for (const target of [
      '/%5femulator/reset',
      '/_emulator/%72eset',
      `http://${authority}/_emulator/reset`,
    ]) {
      const res = await rawRequest(emu.url, 'POST', target, { headers: json, body: '{}' });
      expect(res.status, target).toBe(401);
    }
  });

  it('the open paths are open under any spelling, and the others are not', async () => {
    expect((await rawRequest(emu.url, 'GET', '/_emulator/%68ealth')).status).toBe(200);
    expect((await rawRequest(emu.url, 'GET', '/_emulator/dashboard/%73ession')).status).toBe(401);
  });
});

describe('messaging: the API key check covers every spelling', () => {
  it.each(['/%63onversations', 'http://HOST/conversations', '/conversations/%63nv_1/messages'])(
    'POST %s without a key is a 401',
    async (spelling) => {
      const target = spelling.replace('HOST', new URL(emu.messagingUrl).host);
      const res = await rawRequest(emu.messagingUrl, 'POST', target, { headers: json, body: '{}' });
      expect(res.status, `${target}: ${res.body}`).toBe(401);
    },
  );
});

describe('webhook targets: the own-paths refusal reads a path as the router would', () => {
  it('refuses /_emulator however spelled, a malformed escape elsewhere in the path included', () => {
    const own = { host: '127.0.0.1', urls: ['http://127.0.0.1:4010', 'http://127.0.0.1:4011'] };
    for (const url of [
      'http://127.0.0.1:4010/%5Femulator/reset',
      'http://localhost:4010/%5f%65mulator/reset/%zz',
      'http://127.0.0.1:4010//_STORAGE/objects/x%',
    ]) {
      expect(ownAdminTarget(url, own), url).not.toBeNull();
    }
    expect(ownAdminTarget('http://127.0.0.1:4010/hooks/%zz', own)).toBeNull();
  });
});
