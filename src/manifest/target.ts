import { request } from 'undici';
import { listEmulators } from '../config/emulators.js';
import { isLoopback, normalizeBaseUrl } from '../config/url.js';
import type { TargetIdentity } from './state.js';

/** The store id an emulator reports on `GET /_emulator/health`, or null (not an emulator, not answering, too old). */
async function storeIdAt(baseUrl: string): Promise<string | null> {
  try {
    const response = await request(`${baseUrl.replace(/\/+$/, '')}/_emulator/health`, {
      method: 'GET',
      headersTimeout: 3000,
      bodyTimeout: 3000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) return null;
    const storeId = (JSON.parse(text) as { data?: { storeId?: unknown } }).data?.storeId;
    return typeof storeId === 'string' && storeId.startsWith('st_') ? storeId : null;
  } catch {
    return null;
  }
}

/** What a deploy to `baseUrl` is recorded under: a local emulator's store id (asked of it), else the base URL. */
export async function identifyTarget(
  baseUrl: string,
  hint: { local?: boolean } = {},
): Promise<TargetIdentity> {
  const wanted = normalizeBaseUrl(baseUrl);
  const local =
    hint.local ||
    isLoopback(baseUrl) ||
    (await listEmulators()).some((s) => normalizeBaseUrl(s.url) === wanted);
  return { storeId: local ? await storeIdAt(baseUrl) : null, baseUrl };
}
