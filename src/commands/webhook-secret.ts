import { env } from '../config/env.js';
import { readStdin } from '../ui/dialogs.js';
import { note } from '../ui/output.js';
import type { CommandInput } from './types.js';

// The webhook secret a command signs with (`check`, `trigger --direct`), given by a person or a CI job: `--secret -`
// reads it from stdin and PLUGSMITH_WEBHOOK_SECRET (which `emulator exec --deploy` sets) is taken when no flag is given,
// so that it need not be a process argument (docs/security.md); a literal `--secret whsec_…` still works, with a warning.

/** The secret given (flag, stdin or environment), or undefined: the command then fetches the plugin's from the platform. */
export async function givenWebhookSecret(
  input: CommandInput<unknown>,
  flag: string | undefined,
): Promise<string | undefined> {
  if (flag === '-') return (await readStdin(input.io)) || undefined;
  if (flag !== undefined) {
    note(
      input.io,
      input.global,
      'warning: a secret given on the command line stays in your shell history and the process list; prefer --secret - (stdin) or PLUGSMITH_WEBHOOK_SECRET',
    );
    return flag;
  }
  return env.webhookSecret();
}
