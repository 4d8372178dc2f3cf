import { createRequire } from 'node:module';

// Built-ins through require: an ESM import loads every lazy part (fs's streams, promises), a cost the quick answer avoids.
const builtin = createRequire(import.meta.url);
const { writeSync } = builtin('node:fs') as typeof import('node:fs');

declare const __PLUGSMITH_VERSION__: string;

const LONG_RUNNING = new Set(['emulator', 'dev', 'chat', 'mcp']);

// The only place that sets the exit code: everything below throws.
const argv = process.argv.slice(2);
// `--version` (or `-v`), which scripts ask often, without building the command tree: that costs more than Node's own start.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v'))
  writeOut(`${__PLUGSMITH_VERSION__}\n`);
else void run(argv);

/** Writes to fd 1 directly (process.stdout costs a dozen modules); a closed pipe ends output, a full one gets the rest via the stream. */
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
  const [{ EXIT, UserError, ExitWith }, { processIo }, { terminalSafeIo }, { env }] =
    await Promise.all([
      import('./errors.js'),
      import('./ui/io.js'),
      import('./ui/terminal-text.js'),
      import('./config/env.js'),
    ]);
  // A reader that stops early (`plugsmith emulator openapi | head`) closes the pipe: that ends the output, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.OK);
    throw error;
  });
  // All output goes through this Io, so the platform's control characters never reach the terminal raw (ui/terminal-text.ts).
  const io = terminalSafeIo(processIo(env.ci()), { json: args.includes('--json') });
  try {
    const { main } = await import('./main.js');
    await main(args, io, { beforeCommand: limitWasmTiers });
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

/**
 * Short commands keep undici's WebAssembly HTTP parser on V8's baseline tier: the process cannot exit
 * until background re-optimisation ends (~150 ms). The flag is set at the first connection, once
 * undici's built-ins (and TLS for https) are loaded: V8 refuses Node's code cache for built-ins loaded
 * after a flag changes, and compiling them from source costs a third of Node's start.
 */
function limitWasmTiers(path: readonly string[]): void {
  if (LONG_RUNNING.has(path[0])) return;
  const channels = builtin('node:diagnostics_channel') as typeof import('node:diagnostics_channel');
  const beforeConnect = 'undici:client:beforeConnect';
  const onConnect = (message: unknown): void => {
    channels.unsubscribe(beforeConnect, onConnect);
    if ((message as { connectParams?: { protocol?: string } }).connectParams?.protocol === 'https:')
      builtin('node:tls');
    (builtin('node:v8') as typeof import('node:v8')).setFlagsFromString('--liftoff-only');
  };
  channels.subscribe(beforeConnect, onConnect);
}
