import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { curlCommand } from '../../emulator/dashboard/app/curl.js';
import { adminCall, call } from '../kit/http.js';
import { emulator, server } from '../kit/index.js';

const run = promisify(execFile);

// AUDIT: "Copy as curl" promises to send one logged attempt again, byte for byte. curl expands
// [a-b] and {x,y} in a URL (its "globbing") unless it is given -g/--globoff, and the emulator
// delivers to webhook URLs that contain them: the API refuses such a webhookUrl (format uri), but
// a store import (an export file a teammate shares, `plugsmith emulator import`) takes any string.
// The copied command then sends several requests, to other URLs than the attempt's (a [1-100000]
// sends a hundred thousand). Fix: `curl -g` (--globoff).

describe('copy as curl (audit)', () => {
  it('sends exactly one request, to the URL of the logged attempt, when the webhook URL holds [ ] or { }', async () => {
    const got: string[] = [];
    const { url: base } = await server((req, res) => {
      got.push(req.url!);
      req.resume();
      req.on('end', () => res.end('ok'));
    });

    const emu = await emulator();
    const plugin = await call(emu.url, 'POST', '/api/plugins', {
      token: emu.token!,
      body: {
        orgId: emu.orgId,
        name: 'Globbed',
        description: 'd',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: `${base}/hook`,
      },
    });
    expect(plugin.status, JSON.stringify(plugin.body)).toBe(201);
    // The shared export file: the same store, the plugin's webhookUrl holding curl glob characters.
    const exported = await adminCall(emu, 'GET', '/_emulator/export');
    for (const p of exported.body.data.collections.plugins)
      if (p.id === plugin.body.data.id) p.webhookUrl = `${base}/hook/[1-3]?variant={a,b}`;
    const imported = await adminCall(emu, 'POST', '/_emulator/import', {
      body: exported.body.data,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const emitted = await adminCall(emu, 'POST', '/_emulator/events', {
      body: { type: 'WEBHOOK_CHALLENGE', pluginId: plugin.body.data.id, data: { challenge: 'c' } },
    });
    expect(emitted.status, JSON.stringify(emitted.body)).toBe(201);
    const attempt = emitted.body.data.attempts[0];
    expect(got).toHaveLength(1); // the emulator's own delivery reached the receiver once
    const delivered = got[0];

    got.length = 0;
    const command = curlCommand({
      url: attempt.url,
      headers: attempt.requestHeaders ?? {},
      body: JSON.stringify(emitted.body.data.event),
    });
    await run('sh', ['-c', command]);
    expect(got, `the copied command:\n${command}`).toEqual([delivered]);
  });
});
