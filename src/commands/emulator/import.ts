import { readFile } from 'node:fs/promises';
import type { CommandHandler, TargetFlags } from '../types.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';
import { confirmDeletion } from '../context.js';
import { emulatorTarget } from './target.js';

/** Replaces the running emulator's records with an export file (checked here, then by the emulator). */
const importCommand: CommandHandler<{ yes?: boolean } & TargetFlags> = async (input) => {
  const file = input.args[0];
  // The target first: a wrong PLUGSMITH_BASE_URL is a usage error whatever the file holds.
  const { url, admin } = await emulatorTarget(input);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new UserError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, code === 'ENOENT' ? EXIT.NOT_FOUND : EXIT.USAGE);
    throw new UserError(`${file} is not valid JSON: ${(error as Error).message}`, EXIT.VALIDATION);
  }
  const doc = parsed as { format?: unknown; collections?: unknown };
  if (typeof doc !== 'object' || doc === null || doc.format !== 'plugsmith-emulator-export' || typeof doc.collections !== 'object') {
    throw new UserError(`${file} is not an emulator export (no "format": "plugsmith-emulator-export"): make one with \`plugsmith emulator export FILE\``, EXIT.VALIDATION);
  }
  await confirmDeletion(input, `every record of the emulator at ${url} (replaced by ${file})`);
  const result = await admin.import(parsed);
  const total = Object.values(result.counts).reduce((a, b) => a + b, 0);
  printResult(input.io, input.global, { file, url, ...result }, () => `Imported ${total} records from ${file} into ${url}; everything else was removed.\n`);
};

export default importCommand;
