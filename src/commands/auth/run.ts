import type { RunCommand, TargetFlags } from '../types.js';
import { settingsFor, timeoutMsOf, tokenProbe } from '../context.js';
import { loadConfig, saveConfig, type Profile } from '../../config/profiles.js';
import { chooseEmulator, noEmulatorMessage } from '../../config/emulators.js';
import { UserError, EXIT } from '../../errors.js';
import { askSecret, askText, readStdin, refuseUnasked } from '../../ui/dialogs.js';
import { note, printResult, details } from '../../ui/output.js';
import { configPath } from '../../config/paths.js';
import { checkedHttpUrl } from '../../config/url.js';
import { env } from '../../config/env.js';

interface LoginOptions {
  local?: boolean;
  baseUrl?: string;
  messagingUrl?: string;
  token?: string;
  apiKey?: string;
  org?: string;
}

/** Saves a profile and makes it current. */
export const login: RunCommand<LoginOptions> = async ({ options, global, io }) => {
  const o = options;
  const name = global.profile ?? (o.local ? 'local' : 'default');
  let profile: Profile;
  let runningOrg: string | null = null;

  if (o.local) {
    const choice = await chooseEmulator();
    const state = choice.state;
    if (!state)
      throw new UserError(
        `${noEmulatorMessage(choice)}, then run \`plugsmith login --local\` again`,
        EXIT.NOT_FOUND,
      );
    // Remembered for display only: a local profile follows the running emulator (see resolveSettings);
    // the org is kept only when given.
    profile = {
      baseUrl: state.url,
      messagingUrl: state.messagingUrl,
      token: state.token ?? undefined,
      apiKey: state.apiKey ?? undefined,
      orgId: o.org,
      local: true,
    };
    runningOrg = state.orgId;
  } else {
    if (o.token === '-' && o.apiKey === '-')
      throw new UserError(
        'only one of --token and --api-key can read from stdin ("-")',
        EXIT.USAGE,
      );
    refuseUnasked(io, [
      ...(o.baseUrl === undefined ? ['--base-url'] : []),
      ...(o.token === undefined ? ['--token - (reading the token from stdin)'] : []),
    ]);
    const baseUrl = checkedHttpUrl(
      '--base-url',
      o.baseUrl ?? (await askText(io, { flag: '--base-url', message: 'Management API base URL:' })),
    ).replace(/\/+$/, '');
    const messagingUrl = o.messagingUrl
      ? checkedHttpUrl('--messaging-url', o.messagingUrl).replace(/\/+$/, '')
      : undefined;
    let token = o.token;
    if (token === '-') token = await readStdin(io);
    else if (token === undefined)
      token = await askSecret(io, {
        flag: '--token - (reading the token from stdin)',
        message: 'Token:',
      });
    else
      note(
        io,
        global,
        'warning: a token given on the command line stays in your shell history; prefer --token - and stdin',
      );
    let apiKey = o.apiKey;
    if (apiKey === '-') apiKey = await readStdin(io);
    if (!token)
      throw new UserError('the token is empty: pass it on stdin with --token -', EXIT.USAGE);
    profile = { baseUrl, messagingUrl, token, apiKey: apiKey || undefined, orgId: o.org };
  }

  const config = await loadConfig();
  config.profiles[name] = profile;
  config.current = name;
  await saveConfig(config);
  const shown = {
    profile: name,
    baseUrl: profile.baseUrl,
    messagingUrl: profile.messagingUrl ?? null,
    orgId: profile.orgId ?? runningOrg,
    local: Boolean(profile.local),
  };
  printResult(io, global, shown, () => details(shown));
  note(io, global, `saved to ${configPath()}; try \`plugsmith whoami\``);
};

/** Shows the active profile and checks its token (tokenProbe). */
export const whoami: RunCommand<TargetFlags> = async (input) => {
  const settings = await settingsFor(input);
  if (!settings.baseUrl)
    throw new UserError(
      'not logged in: run `plugsmith login --local` or `plugsmith login --base-url URL`',
      EXIT.AUTH,
    );
  const { createClient, isNetworkError } = await import('../../client/index.js');
  const client = createClient({
    baseUrl: settings.baseUrl,
    token: settings.token,
    retries: 0,
    timeoutMs: timeoutMsOf(input),
  });
  let tokenValid: boolean | null = null;
  let problem: string | undefined;
  if (settings.token) {
    const answer = await tokenProbe(client).finally(() => client.close());
    if (typeof answer === 'boolean') tokenValid = answer;
    else
      problem = isNetworkError(answer)
        ? `cannot reach ${settings.baseUrl}: ${answer.message}`
        : answer.message;
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
  if (tokenValid === false)
    throw new UserError(
      // PLUGSMITH_TOKEN wins over the profile's: in CI it is where the token came from, and login would not change it.
      env.token() === settings.token
        ? `the token in PLUGSMITH_TOKEN is not valid at ${settings.baseUrl}: set it to a token of this platform (\`plugsmith tokens create\` makes one)`
        : 'the token is not valid here: run `plugsmith login` again',
      EXIT.AUTH,
    );
  if (!settings.token)
    throw new UserError('no token: run `plugsmith login` or set PLUGSMITH_TOKEN', EXIT.AUTH);
};
