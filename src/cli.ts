import { setFlagsFromString } from 'node:v8';
import { EXIT, UserError } from './errors.js';
import { processIo } from './ui/io.js';
import { env } from './config/env.js';

declare const __PLUGSMITH_VERSION__: string;

const LONG_RUNNING = new Set(['emulator', 'dev', 'chat']);

// A reader that stops early (`plugsmith emulator openapi | head`) closes the pipe: that ends the
// output, it is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.OK);
  throw error;
});

// The only place that sets the exit code: everything below throws.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Scripts ask for the version often: answer without building the command tree.
  process.stdout.write(`${__PLUGSMITH_VERSION__}\n`);
} else {
  // undici parses HTTP with llhttp compiled to WebAssembly. V8 then re-optimises that module on
  // background threads, and a process cannot exit before those finish: ~150 ms added to every
  // short command. Its baseline compiler is plenty for a few requests; long-running commands
  // (the emulator, the dev loop) keep the optimising tier.
  if (!LONG_RUNNING.has(argv.find((a) => !a.startsWith('-')) ?? '')) setFlagsFromString('--liftoff-only');
  const io = processIo(env.ci());
  import('./main.js')
    .then(({ main }) => main(argv, io))
    .then(
      () => {
        process.exitCode = EXIT.OK;
      },
      async (error: unknown) => {
        const { exitCodeOf, formatError } = await import('./ui/errors.js');
        io.stderr.write(formatError(error, { verbose: argv.includes('--verbose') }) + '\n');
        process.exitCode = error instanceof UserError ? error.exitCode : exitCodeOf(error);
      },
    );
}
