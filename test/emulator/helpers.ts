import { expect } from 'vitest';
import { adminCall, call } from '../kit/index.js';
import type { Emulator } from '../../emulator/index.js';
import type { WebhookServer } from './webhooks/helpers.js';

/** JSON text of an object nested `depth` levels deep: {"a":{"a":…{"leaf":true}…}} (built as text: JSON.stringify would overflow). */
export function deepJson(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{"leaf":true}' + '}'.repeat(depth - 1);
}

/** A DATA_PROVIDER plugin of org_dev with a verified webhook at `hook`. */
export async function verifiedDataProvider(emu: Emulator, hook: WebhookServer): Promise<string> {
  const plugin = await call(emu.url, 'POST', '/api/plugins', {
    token: emu.token!,
    body: {
      orgId: 'org_dev',
      name: 'Docs indexer',
      type: 'DATA_PROVIDER',
      events: ['REPOSITORY_FILE_ADDED'],
      scopes: ['REPOSITORY_FILES_READ'],
      webhookUrl: hook.url,
    },
  });
  expect(plugin.status).toBe(201);
  const verified = await call(
    emu.url,
    'POST',
    `/api/plugins/${plugin.body.data.id}/verify-webhook`,
    {
      token: emu.token!,
    },
  );
  expect(verified.body.data.verified).toBe(true);
  return plugin.body.data.id;
}

/** The store's contents as the export shows them (without its timestamp). */
export async function exported(emu: Emulator): Promise<Record<string, unknown[]>> {
  const res = await adminCall(emu, 'GET', '/_emulator/export');
  expect(res.status).toBe(200);
  return res.body.data.collections;
}
