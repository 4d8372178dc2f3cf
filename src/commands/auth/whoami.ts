import type { CommandHandler, TargetFlags } from '../types.js';
import { settingsFor, timeoutMsOf } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { details, printResult } from '../../ui/output.js';

/**
 * Shows the active profile and checks the token: a GET of a plugin id that cannot exist answers
 * 404 to a valid token and 401 to an invalid one, on the emulator and the platform alike.
 */
const whoami: CommandHandler<TargetFlags> = async (input) => {
  const settings = await settingsFor(input);
  if (!settings.baseUrl) throw new UserError('not logged in: run `plugsmith login --local` or `plugsmith login --base-url URL`', EXIT.AUTH);
  const { createClient, isApiError, isNetworkError } = await import('../../client/index.js');
  const client = createClient({ baseUrl: settings.baseUrl, token: settings.token, retries: 0, timeoutMs: timeoutMsOf(input) });
  let tokenValid: boolean | null = null;
  let problem: string | undefined;
  if (settings.token) {
    try {
      await client.plugins.get('plugsmith-whoami-probe');
      tokenValid = true;
    } catch (error) {
      if (isApiError(error) && error.status === 404) tokenValid = true;
      else if (isApiError(error) && error.status === 401) tokenValid = false;
      else if (isNetworkError(error)) problem = `cannot reach ${settings.baseUrl}: ${error.message}`;
      else problem = (error as Error).message;
    } finally {
      await client.close();
    }
  }
  const result = {
    profile: settings.profileName,
    baseUrl: settings.baseUrl,
    messagingUrl: settings.messagingUrl ?? null,
    orgId: settings.orgId ?? null,
    token: settings.token ? `…${settings.token.slice(-4)}` : null,
    tokenValid,
    apiKey: settings.apiKey ? `…${settings.apiKey.slice(-4)}` : null,
    local: settings.local,
  };
  printResult(input.io, input.global, result, () => details(result));
  if (problem) throw new UserError(problem, EXIT.NETWORK);
  if (tokenValid === false) throw new UserError('the token is not valid here: run `plugsmith login` again', EXIT.AUTH);
  if (!settings.token) throw new UserError('no token: run `plugsmith login` or set PLUGSMITH_TOKEN', EXIT.AUTH);
};

export default whoami;
