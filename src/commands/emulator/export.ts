import type { CommandHandler, TargetFlags } from '../types.js';
import { note, printResult } from '../../ui/output.js';
import { UserError, EXIT } from '../../errors.js';
import { emulatorTarget } from './target.js';
import { writePrivateFile } from '../../config/private-file.js';

/** Writes every record of the running emulator to a JSON file (owner-only: it holds webhook secrets). */
const exportCommand: CommandHandler<TargetFlags> = async (input) => {
  const file = input.args[0];
  const { url, admin } = await emulatorTarget(input);
  const data = await admin.export();
  try {
    await writePrivateFile(file, JSON.stringify(data, null, 2) + '\n');
  } catch (error) {
    throw new UserError(`cannot write ${file}: ${(error as Error).message}`, EXIT.USAGE);
  }
  const collections = (data.collections ?? {}) as Record<string, unknown[]>;
  const counts = Object.fromEntries(Object.entries(collections).map(([k, v]) => [k, v.length]));
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  printResult(input.io, input.global, { file, url, counts }, () => `Exported ${total} records from ${url} to ${file}.\n`);
  if (!input.global.json) note(input.io, input.global, 'The file holds webhook secrets and token hashes: keep it private. Uploaded file contents are not included.');
};

export default exportCommand;
