import { isWildcardHost, ownHostNames, type AdminAccess } from './guard.js';
import { loosePath } from '../route-path.js';

/** Path prefixes of the emulator that no webhook may reach: the admin surface and the embedded object store. */
const OWN_PATHS = ['/_emulator', '/_storage'];

/** The emulator a webhook URL is checked against: its host, admin host names, and base URLs (empty before listening). */
type OwnAddress = Pick<AdminAccess, 'host' | 'adminHosts'> & { urls: string[] };

/** An IPv4-mapped IPv6 address in the hex form URL parsing gives (`::ffff:7f00:1`) as dotted IPv4. */
function unmapped(host: string): string {
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!m) return host.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const hi = parseInt(m[1], 16);
  const lo = parseInt(m[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Why a webhook URL must not be delivered to, or null: it names one of the emulator's ports under
 * one of its names (URL parsing already reduces decimal and hex spellings) and a path under
 * /_emulator or /_storage. Deliveries carry no admin credential anyway; this refuses them first.
 */
export function ownAdminTarget(url: string, own: OwnAddress): string | null {
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const ports = new Set(
    own.urls.filter((base) => URL.canParse(base)).map((base) => new URL(base).port || '80'),
  );
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  if (!ports.has(port)) return null;
  const host = unmapped(parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase());
  const isOwnName = ownHostNames(own.host, own.adminHosts);
  if (!isOwnName(host) && !isWildcardHost(host)) return null;
  // Escapes decoded one by one (loosePath), so a malformed one elsewhere does not keep `%5f` from being read as `_`.
  const path = loosePath(parsed.pathname.replace(/\\/g, '/'));
  const hit = OWN_PATHS.find((p) => path.startsWith(p));
  if (!hit) return null;
  return `the webhook URL ${url} points at the emulator's own ${hit} paths; webhooks are never delivered there: use your plugin's own server`;
}
