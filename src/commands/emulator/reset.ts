import type { CommandHandler, TargetFlags } from '../types.js';
import { emulatorUrl } from '../../dev/emulator-target.js';
import { EmulatorAdmin } from '../../dev/emulator-admin.js';
import { adminTokenFor } from '../../config/admin-token.js';
import { confirmDeletion } from '../context.js';
import { timeoutMsOf } from '../context.js';

/** Empties the running emulator and loads its seed again (the seed's credentials keep working). */
const reset: CommandHandler<{ yes?: boolean } & TargetFlags> = async (input) => {
  const url = await emulatorUrl({ url: input.options.baseUrl, profile: input.global.profile });
  await confirmDeletion(input, `every record of the emulator at ${url} (back to its seed)`);
  await new EmulatorAdmin(url, { adminToken: await adminTokenFor(url), timeoutMs: timeoutMsOf(input) }).reset();
  if (input.global.json) input.io.stdout.write(JSON.stringify({ url, reset: true }, null, 2) + '\n');
  else input.io.stdout.write(`Reset the emulator at ${url} to its seed.\n`);
};

export default reset;
