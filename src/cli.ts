import { EXIT, ExitWith, UserError } from './errors.js';
import { env } from './config/env.js';
import { main } from './main.js';
import { exitCodeOf, formatError } from './ui/errors.js';
import { processIo } from './ui/io.js';
import { finishesWhenStdoutCloses } from './ui/closed-stdout.js';
import { terminalSafeIo } from './ui/terminal-text.js';

// The only place that sets the exit code: everything below throws.
void run(process.argv.slice(2));

/** Builds the program and runs the command argv names, setting the exit code from its outcome. */
async function run(args: string[]): Promise<void> {
  // A reader that stops early (`plugsmith emulator openapi | head`) closes the pipe: that ends the output, not an error.
  // It ends the command too (exit 0), unless the command's exit code is its verdict (src/ui/closed-stdout.ts): then the
  // stream is left destroyed (later writes go nowhere) and the command finishes with its own exit code.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
      if (finishesWhenStdoutCloses()) return;
      process.exit(EXIT.OK);
    }
    throw error;
  });
  // All output goes through this Io, so the platform's control characters never reach the terminal raw (ui/terminal-text.ts).
  const io = terminalSafeIo(processIo(env.ci()), { json: args.includes('--json') });
  try {
    await main(args, io);
    process.exitCode = EXIT.OK;
  } catch (error) {
    if (error instanceof ExitWith) {
      process.exitCode = error.exitCode;
      return;
    }
    io.stderr.write(`${formatError(error, { verbose: args.includes('--verbose') })}\n`);
    process.exitCode = error instanceof UserError ? error.exitCode : exitCodeOf(error);
  }
}
