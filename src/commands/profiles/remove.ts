import type { CommandHandler } from '../types.js';
import { loadConfig, saveConfig } from '../../config/profiles.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';

/** Deletes a profile (and un-sets it as current). */
const remove: CommandHandler<object> = async ({ args, global, io }) => {
  const name = args[0];
  const config = await loadConfig();
  if (!config.profiles[name]) throw new UserError(`no profile named "${name}"`, EXIT.NOT_FOUND);
  delete config.profiles[name];
  if (config.current === name) config.current = undefined;
  await saveConfig(config);
  printResult(io, global, { removed: name }, () => `removed profile ${name}\n`);
};

export default remove;
