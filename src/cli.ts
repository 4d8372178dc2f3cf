import { main } from './main.js';
import { UserError, EXIT } from './errors.js';
import { processIo } from './ui/io.js';
import { env } from './config/env.js';

// The only place that sets the exit code: everything below throws.
const io = processIo(env.ci());
const argv = process.argv.slice(2);
main(argv, io).then(
  () => {
    process.exitCode = EXIT.OK;
  },
  async (error: unknown) => {
    const { exitCodeOf, formatError } = await import('./ui/errors.js');
    const verbose = argv.includes('--verbose');
    io.stderr.write(formatError(error, { verbose }) + '\n');
    process.exitCode = error instanceof UserError ? error.exitCode : exitCodeOf(error);
  },
);
