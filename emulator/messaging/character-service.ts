import { conflict, found } from '../errors.js';
import { nowIso } from '../store/ids.js';
import type { CharacterRecord } from '../model.js';
import type { StoreDeps } from '../context.js';

/** Creates a character; an id already taken is a 409 naming the fix. */
export async function createCharacter(
  services: StoreDeps,
  character: CharacterRecord,
): Promise<CharacterRecord> {
  if (services.db.characters.has(character.id)) {
    throw conflict(
      `A character with id ${character.id} already exists; choose another id or PATCH /_emulator/characters/${character.id}`,
    );
  }
  await services.db.characters.put(character);
  return character;
}

/** Changes a character: `change` builds the new record from the current one. */
export async function updateCharacter(
  services: StoreDeps,
  characterId: string,
  change: (current: CharacterRecord) => CharacterRecord,
): Promise<CharacterRecord> {
  const current = found(services.db.characters.get(characterId), 'character', characterId);
  const updated = { ...change(current), updatedAt: nowIso() };
  await services.db.characters.put(updated);
  return updated;
}
