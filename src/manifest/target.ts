import { text } from 'node:stream/consumers';
import { listEmulators } from '../config/emulators.js';
import { isLoopback, normalizeBaseUrl } from '../config/url.js';
import { request } from '../shared/http/request.js';
import type { TargetIdentity } from './state.js';

/** How long an emulator's health answer is waited for, head and body. */
const HEALTH_TIMEOUT_MS = 3000;

/**
 * The store id an emulator reports on `GET /_emulator/health`, or null (not an emulator, not answering, too old). Sent with
 * node:http, as the client sends: undici would be most of a short command's start (trigger, logs and deploy all ask).
 */
async function storeIdAt(baseUrl: string): Promise<string | null> {
  try {
    const response = await request(`${baseUrl.replace(/\/+$/, '')}/_emulator/health`, {
      method: 'GET',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    const body = await text(response.body);
    if (response.statusCode !== 200) return null;
    const storeId = (JSON.parse(body) as { data?: { storeId?: unknown } }).data?.storeId;
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
