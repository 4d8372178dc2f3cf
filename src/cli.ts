import { createRequire } from 'node:module';

// node:fs through require: an ESM import of a built-in loads every lazy part of it (fs's streams
// and promises), a cost the quick answers below are there to avoid.
const { fstatSync, readFileSync, statSync, writeSync } = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

declare const __PLUGSMITH_VERSION__: string;

const LONG_RUNNING = new Set(['emulator', 'dev', 'chat']);

/** Width of the help text that the build saved (commander's width when stdout is not a terminal). */
const SAVED_HELP_WIDTH = 80;

/**
 * The answer to `plugsmith --version` and to `plugsmith --help` (or `-h`, or nothing), which scripts
 * and people ask for often: the version, and the program's help that the build saved in
 * dist/help.txt by running the full program (tsup.config.ts), so the text is commander's own.
 * Undefined when argv asks for anything else, when stdout is a terminal of another width than the
 * saved text's, or when the file is missing (a partial build): then the full program answers.
 */
function quickAnswer(args: string[]): string | undefined {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) return `${__PLUGSMITH_VERSION__}\n`;
  if (args.length > 1 || (args.length === 1 && args[0] !== '--help' && args[0] !== '-h')) return undefined;
  try {
    if (stdoutIsTerminal() && process.stdout.columns !== SAVED_HELP_WIDTH) return undefined;
    return readFileSync(new URL('./help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Whether stdout is a terminal, asked of the file descriptor: node:tty and the stream behind
 * process.stdout cost more than the rest of a quick answer. A file or a pipe is not one, nor
 * /dev/null (a character device like a terminal, and where scripts send what they do not read).
 */
function stdoutIsTerminal(): boolean {
  const out = fstatSync(1);
  if (!out.isCharacterDevice()) return false;
  if (out.rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return false;
  return Boolean(process.stdout.isTTY);
}

// The only place that sets the exit code: everything below throws.
const argv = process.argv.slice(2);
const quick = quickAnswer(argv);
// Without building the command tree: commander and the registry cost more than Node's own start.
if (quick !== undefined) writeOut(quick);
else void run(argv);

/**
 * Writes text to stdout straight to the file descriptor (the stream behind process.stdout costs a
 * dozen modules); a reader that closed the pipe ends the output, and a pipe that is full for now
 * gets the rest through the stream.
 */
function writeOut(text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return;
    if (code !== 'EAGAIN') throw error;
    process.stdout.write(bytes.subarray(written));
  }
}

/** Builds the program and runs the command argv names, setting the exit code from its outcome. */
async function run(args: string[]): Promise<void> {
  const [{ EXIT, UserError, ExitWith }, { processIo }, { env }, { setFlagsFromString }] = await Promise.all([
    import('./errors.js'),
    import('./ui/io.js'),
    import('./config/env.js'),
    import('node:v8'),
  ]);
  // A reader that stops early (`plugsmith emulator openapi | head`) closes the pipe: that ends the
  // output, it is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.OK);
    throw error;
  });
  // undici parses HTTP with llhttp compiled to WebAssembly. V8 then re-optimises that module on
  // background threads, and a process cannot exit before those finish: ~150 ms added to every
  // short command. Its baseline compiler is plenty for a few requests; long-running commands
  // (the emulator, the dev loop) keep the optimising tier.
  if (!LONG_RUNNING.has(args.find((a) => !a.startsWith('-')) ?? '')) setFlagsFromString('--liftoff-only');
  const io = processIo(env.ci());
  try {
    const { main } = await import('./main.js');
    await main(args, io);
    process.exitCode = EXIT.OK;
  } catch (error) {
    if (error instanceof ExitWith) {
      process.exitCode = error.exitCode;
      return;
    }
    const { exitCodeOf, formatError } = await import('./ui/errors.js');
    io.stderr.write(formatError(error, { verbose: args.includes('--verbose') }) + '\n');
    process.exitCode = error instanceof UserError ? error.exitCode : exitCodeOf(error);
  }
}
