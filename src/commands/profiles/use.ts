import type { CommandHandler } from '../types.js';
import { loadConfig, saveConfig } from '../../config/profiles.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';

/** Makes a profile current. */
const use: CommandHandler<object> = async ({ args, global, io }) => {
  const name = args[0];
  const config = await loadConfig();
  if (!config.profiles[name]) {
    const known = Object.keys(config.profiles);
    throw new UserError(`no profile named "${name}"${known.length ? ` (profiles: ${known.join(', ')})` : ''}`, EXIT.NOT_FOUND);
  }
  config.current = name;
  await saveConfig(config);
  printResult(io, global, { current: name }, () => `now using profile ${name}\n`);
};

export default use;
