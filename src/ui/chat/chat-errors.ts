import { isApiError, isNetworkError } from '../../client/index.js';
import { EXIT } from '../../errors.js';
import { exitCodeOf } from '../errors.js';
import { ConversationMismatch } from './chat-session.js';

/** The command that lists the characters a chat can start with (the emulator's admin API). */
export const LIST_CHARACTERS_COMMAND = 'plugsmith chat --list-characters';

/** What went wrong in a chat and what to do next (with its exit code), for the errors whose cure is known. */
export function describeChatError(
  error: unknown,
  context: { characterId?: string; conversationId?: string } = {},
): { message: string; exitCode: number } | undefined {
  if (error instanceof ConversationMismatch)
    return { message: error.message, exitCode: EXIT.USAGE };
  if (isNetworkError(error)) {
    return {
      message: `cannot reach the messaging API (${error.message}): is it running? (\`plugsmith doctor\` checks)`,
      exitCode: EXIT.NETWORK,
    };
  }
  if (!isApiError(error)) return undefined;
  if (error.status === 401) {
    return {
      message:
        'the messaging API refused the API key: run `plugsmith login` (or set PLUGSMITH_API_KEY)',
      exitCode: EXIT.AUTH,
    };
  }
  if (error.status === 400 && error.details.some((d) => d.path?.[0] === 'characterId')) {
    const character = context.characterId ? `character ${context.characterId}` : 'such character';
    return {
      message: `no ${character} in this API key's org: \`${LIST_CHARACTERS_COMMAND}\` lists them (emulator)`,
      exitCode: EXIT.NOT_FOUND,
    };
  }
  if (error.status === 404 && context.conversationId !== undefined) {
    return {
      message: `no conversation ${context.conversationId} for this API key: leave out --conversation to start a new one`,
      exitCode: EXIT.NOT_FOUND,
    };
  }
  return { message: `${error.message} (HTTP ${error.status})`, exitCode: exitCodeOf(error) };
}
