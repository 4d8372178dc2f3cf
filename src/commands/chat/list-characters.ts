import type { Character, PlatformClient } from '../../client/index.js';
import { UserError, EXIT } from '../../errors.js';

/** The characters a chat can start with, from the emulator's admin API (the platform lists none): the org's, else every org's. */
export async function listCharacters(
  client: PlatformClient,
  orgId: string | undefined,
): Promise<Character[]> {
  try {
    const page = await client.emulator.characters.list({
      limit: 100,
      sortBy: 'name',
      sortOrder: 'asc',
      filters: orgId ? { orgId } : undefined,
    });
    return page.data;
  } catch (error) {
    const e = error as { name?: string; status?: number };
    if (e.name === 'ApiError' && e.status === 404) {
      throw new UserError(
        'only the emulator lists characters, and this platform is not the emulator: pass the character id, `plugsmith chat <characterId>`',
        EXIT.USAGE,
      );
    }
    throw error;
  }
}
