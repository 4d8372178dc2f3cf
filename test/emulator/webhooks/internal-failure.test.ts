import { adminCall, call, emulator } from '../../kit/index.js';
import { afterAll, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';

let emu: Emulator | undefined;
let hook: WebhookServer | undefined;
afterAll(async () => {
  await hook?.close();
});

it('an attempt that throws inside the emulator is logged on the delivery and reported, not left pending as if the store closed', async () => {
  const lines: string[] = [];
  hook = await WebhookServer.start();
  // No retry: the first attempt is the last, so the delivery must end.
  emu = await emulator({
    seed: ROLES_SEED,
    delivery: { schedule: [] },
    log: (line) => lines.push(line),
  });
  const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
    type: 'DATA_PROVIDER',
    webhookUrl: hook.url,
  });

  // An import keeps a webhookSecret that is not base64: signing the next attempt throws.
  const exported = await adminCall(emu, 'GET', '/_emulator/export');
  const file = exported.body.data;
  for (const record of file.collections.plugins)
    if (record.id === plugin.id) record.webhookSecret = 'whsec_not*base64!';
  const imported = await adminCall(emu, 'POST', '/_emulator/import', { body: file });
  expect(imported.status).toBe(200);

  const installed = await call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
    bearer: TOKENS.member,
    body: { name: 'dp', pluginId: plugin.id, events: [], scopes: [] },
  });
  expect(installed.status).toBe(201);

  const delivery = await emu.waitForDelivery({
    type: 'PLUGIN_INSTALLED',
    pluginId: plugin.id,
    status: 'exhausted',
    timeoutMs: 5000,
  });
  expect(delivery.attempts).toHaveLength(1);
  expect(delivery.attempts[0]).toMatchObject({
    responseStatus: null,
    error: expect.stringMatching(/emulator failed before sending.*invalid webhook secret/),
  });
  expect(hook.ofType('PLUGIN_INSTALLED')).toHaveLength(0);
  const report = lines.find((line) => line.includes(delivery.id));
  expect(report).toMatch(/failed inside the emulator.*TypeError: invalid webhook secret/);
  // The secret itself is never printed.
  expect(lines.join('\n')).not.toContain('not*base64');
});
