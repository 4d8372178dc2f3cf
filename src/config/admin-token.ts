import { env } from './env.js';
import { listEmulators } from './emulators.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function sameEmulator(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const x = new URL(a);
  const y = new URL(b);
  if ((x.port || '80') !== (y.port || '80')) return false;
  return x.hostname.toLowerCase() === y.hostname.toLowerCase() || (LOOPBACK.test(x.hostname) && LOOPBACK.test(y.hostname));
}

/** The admin credential for the emulator at `url`: PLUGSMITH_ADMIN_TOKEN, else the state file's of the emulator listening there. */
export async function adminTokenFor(url: string | undefined): Promise<string | undefined> {
  const fromEnv = env.adminToken();
  if (fromEnv) return fromEnv;
  if (!url) return undefined;
  const state = (await listEmulators()).find((s) => sameEmulator(s.url, url));
  return state?.adminToken || undefined;
}
