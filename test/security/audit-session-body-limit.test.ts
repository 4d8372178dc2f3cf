import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { call } from '../kit/http.js';
import { emulator } from '../kit/index.js';

// AUDIT: the dashboard's sign-in takes a body from anyone on this machine without a credential; a
// body over the 1 MiB limit is refused with 413 (good), but the route's contract does not declare
// 413 (it declares 200, 400, 401, 403, 415), so the OpenAPI document is wrong for it and the
// contract check of this suite flags the answer. Fix: errorResponses(400, 401, 403, 413, 415) on
// POST /dashboard/session in emulator/dashboard/routes.ts.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

describe('POST /_emulator/dashboard/session with a huge body (audit)', () => {
  it('is refused with 413, a status its OpenAPI operation declares', async () => {
    const res = await call(emu.url, 'POST', '/_emulator/dashboard/session', {
      rawBody: JSON.stringify({ code: 'a', pad: 'x'.repeat(2_000_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    const doc = await call(emu.url, 'GET', '/_emulator/openapi.json');
    expect(Object.keys(doc.body.paths['/_emulator/dashboard/session'].post.responses)).toContain(
      '413',
    );
  });
});
