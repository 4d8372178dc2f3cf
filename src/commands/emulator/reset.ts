import type { CommandHandler, TargetFlags } from '../types.js';
import { confirmDeletion } from '../context.js';
import { printResult } from '../../ui/output.js';
import { emulatorTarget } from './target.js';

/** Empties the running emulator and loads its seed again (the seed's credentials keep working). */
const reset: CommandHandler<{ yes?: boolean } & TargetFlags> = async (input) => {
  const { url, admin } = await emulatorTarget(input);
  await confirmDeletion(input, `every record of the emulator at ${url} (back to its seed)`);
  await admin.reset();
  printResult(input.io, input.global, { url, reset: true }, () => `Reset the emulator at ${url} to its seed.\n`);
};

export default reset;
