import { expect } from 'vitest';
import { call, type ApiResponse, type CallOptions } from '../kit/http.js';
import type { Emulator } from '../../emulator/index.js';
import type { WebhookServer } from './webhooks/helpers.js';

/** JSON text of an object nested `depth` levels deep: {"a":{"a":…{"leaf":true}…}} (built as text: JSON.stringify would overflow). */
export function deepJson(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{"leaf":true}' + '}'.repeat(depth - 1);
}

/** The admin credential header, once the emulator has one (another branch adds it); nothing before. */
export function adminHeaders(emu: Emulator): Record<string, string> {
  const token = (emu as unknown as { adminToken?: string }).adminToken;
  return token ? { 'x-plugsmith-admin': token } : {};
}

/** A call to the management API. */
export function api(
  emu: Emulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  return call(emu.url, method, path, {
    ...options,
    headers: { ...adminHeaders(emu), ...options.headers },
  });
}

/** A DATA_PROVIDER plugin of org_dev with a verified webhook at `hook`. */
export async function verifiedDataProvider(emu: Emulator, hook: WebhookServer): Promise<string> {
  const plugin = await api(emu, 'POST', '/api/plugins', {
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
  const verified = await api(emu, 'POST', `/api/plugins/${plugin.body.data.id}/verify-webhook`, {
    token: emu.token!,
  });
  expect(verified.body.data.verified).toBe(true);
  return plugin.body.data.id;
}

/** The store's contents as the export shows them (without its timestamp). */
export async function exported(emu: Emulator): Promise<Record<string, unknown[]>> {
  const res = await api(emu, 'GET', '/_emulator/export');
  expect(res.status).toBe(200);
  return res.body.data.collections;
}
