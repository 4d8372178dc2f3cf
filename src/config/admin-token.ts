import { env } from './env.js';
import { listEmulators } from './emulators.js';
import { normalizeBaseUrl } from './url.js';

/** The admin credential for the emulator at `url`: PLUGSMITH_ADMIN_TOKEN, else the state file's of the emulator listening there. */
export async function adminTokenFor(url: string | undefined): Promise<string | undefined> {
  const fromEnv = env.adminToken();
  if (fromEnv || !url) return fromEnv;
  const state = (await listEmulators()).find(
    (s) => normalizeBaseUrl(s.url) === normalizeBaseUrl(url),
  );
  return state?.adminToken || undefined;
}
