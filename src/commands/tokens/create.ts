import type { RunCommand, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';
import { note } from '../../ui/output.js';

/** Creates a user token; the secret is shown once, so --json gives it to scripts. */
const create: RunCommand<{ name?: string; org?: string } & TargetFlags> = async (input) => {
  const o = input.options;
  const name = o.name ?? (await askText(input.io, { flag: '--name', message: 'Token name:' }));
  // --org here limits the token; it does not default to the profile's org.
  const token = await withClient(input, { token: true }, (client) =>
    client.tokens.create({ name, ...(o.org ? { orgId: o.org } : {}) }),
  );
  if (input.global.quiet && !input.global.json) {
    // The one value a script needs from it, like `plugins secret`: the token itself, shown only now.
    input.io.stdout.write(`${token.token}\n`);
    return;
  }
  printRecord(input, token);
  note(
    input.io,
    input.global,
    'the token is shown only now: store it (e.g. `echo "$TOKEN" | plugsmith login --token - --base-url URL`)',
  );
};

export default create;
