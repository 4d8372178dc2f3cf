import { request } from 'undici';
import { listEmulators } from '../config/emulators.js';
import type { TargetIdentity } from './state.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0)$/i;

/** Whether a base URL points at this machine (where an emulator would run). */
export function isLoopback(baseUrl: string): boolean {
  try {
    return LOOPBACK.test(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/** The store id an emulator reports on `GET /_emulator/health`, or null (not an emulator, not answering, too old). */
async function storeIdAt(baseUrl: string): Promise<string | null> {
  try {
    const response = await request(`${baseUrl.replace(/\/+$/, '')}/_emulator/health`, { method: 'GET', headersTimeout: 3000, bodyTimeout: 3000 });
    const text = await response.body.text();
    if (response.statusCode !== 200) return null;
    const storeId = (JSON.parse(text) as { data?: { storeId?: unknown } }).data?.storeId;
    return typeof storeId === 'string' && storeId.startsWith('st_') ? storeId : null;
  } catch {
    return null;
  }
}

/** What a deploy to `baseUrl` is recorded under: a local emulator's store id (asked of it), else the base URL. */
export async function identifyTarget(baseUrl: string, hint: { local?: boolean } = {}): Promise<TargetIdentity> {
  let local = Boolean(hint.local) || isLoopback(baseUrl);
  if (!local) {
    const wanted = baseUrl.replace(/\/+$/, '');
    local = (await listEmulators()).some((s) => s.url.replace(/\/+$/, '') === wanted);
  }
  return { storeId: local ? await storeIdAt(baseUrl) : null, baseUrl };
}
