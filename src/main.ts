import { Argument, Command, CommanderError, Option, InvalidArgumentError } from 'commander';
import { commands, groups as GROUPS } from './commands/registry.js';
import {
  InvalidOptionValue,
  type AnyCommandSpec,
  type GlobalOptions,
  type OptionSpec,
} from './commands/types.js';
import { httpUrlProblem } from './config/url.js';
import { UserError, EXIT } from './errors.js';
import { didYouMean } from './ui/did-you-mean.js';
import type { Io } from './ui/io.js';
import { VERSION } from './version.js';

/** Builds the commander program from the command registry; what a command runs loads only when it runs. */
export function buildProgram(io: Io): Command {
  const program = new Command('plugsmith')
    .description(
      'Build, test and deploy plugins for the AI-agent platform, against the real platform or a local emulator',
    )
    .version(VERSION, '-v, --version', 'print the version')
    .option('--json', 'print only the result as JSON on stdout')
    .option(
      '-q, --quiet',
      "print only results and errors: a record's id, a list's ids, a created token; no notes",
    )
    .option('--no-color', 'disable colour')
    .option('--verbose', 'trace HTTP requests (secrets redacted) and show stacks')
    .option('--profile <name>', 'profile to use (see `plugsmith profiles list`)')
    .option(
      '--emulator <url|folder>',
      "the running local emulator to use: its URL, or its project (or data) folder (env PLUGSMITH_EMULATOR; default: the current project's, else the most recently started)",
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'seconds to wait for each answer of the platform (env PLUGSMITH_TIMEOUT; default 30)',
      ).argParser(timeoutOption),
    )
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Usage errors come back as a UserError that src/cli.ts prints once, with the help hint.
      outputError: () => undefined,
    })
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();
  helpWhenBare(program);

  const groups = new Map<string, Command>();
  /** The group of the first `depth` words of `path`, made once. */
  const groupOf = (parent: Command, path: readonly string[], depth: number): Command => {
    const key = path.slice(0, depth).join(' ');
    let group = groups.get(key);
    if (!group) {
      group = parent
        .command(path[depth - 1])
        .description(GROUPS[key] ?? `${path[depth - 1]} commands`)
        .exitOverride();
      helpWhenBare(group);
      groups.set(key, group);
    }
    return group;
  };
  for (const spec of commands) {
    let parent = program;
    for (let depth = 1; depth < spec.path.length; depth++)
      parent = groupOf(parent, spec.path, depth);
    // A command may also be the group of longer ones (`logs` and `logs redeliver`): register it first.
    groups.set(spec.path.join(' '), addCommand(program, parent, spec, io));
  }
  return program;
}

/** A group typed bare (`plugsmith plugins`, or `plugsmith` alone) prints its help and succeeds; an unknown subcommand is a usage error. */
function helpWhenBare(group: Command): void {
  // An action would turn off commander's `help [command]`, which groups have always had.
  group.helpCommand(true);
  // Unknown options reach the action too, so `tokens list --base-url URL` names the unknown command, not the option.
  group
    .allowExcessArguments(true)
    .allowUnknownOption(true)
    .action((...received: unknown[]) => {
      const self = received[received.length - 1] as Command;
      const first = self.args[0];
      if (first === undefined) self.help();
      // What comes first is what is wrong: `--bogus plugins list` has an unknown option.
      if (first.startsWith('-'))
        self.error(`unknown option '${first}'`, { code: 'commander.unknownOption' });
      unknownCommand(self, first);
    });
}

/** Ends with the usage error for `word`, which names no command of `group`: its commands, and the nearest. */
function unknownCommand(group: Command, word: string): never {
  const commands = group.commands.map((c) => c.name()).filter((name) => name !== 'help');
  const where = group.parent ? `of \`${commandPath(group)}\` ` : '';
  group.error(
    `unknown command '${word}' ${where}(its commands: ${commands.join(', ')})${didYouMean(word, commands)}`,
    { code: 'commander.unknownCommand' },
  );
}

/** `plugsmith tokens` for the group `tokens`. */
function commandPath(command: Command): string {
  const words: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

function addCommand(program: Command, parent: Command, spec: AnyCommandSpec, io: Io): Command {
  const command = parent
    .command(spec.path[spec.path.length - 1])
    .description(spec.summary)
    .exitOverride();
  for (const arg of spec.args ?? []) {
    if (typeof arg === 'string') command.argument(arg);
    else {
      const argument = new Argument(arg.name, arg.description);
      // choices() lists the values in help and completion; the parser after it accepts any case.
      if (arg.choices) argument.choices(arg.choices).argParser((value: string) => value);
      command.addArgument(argument);
    }
  }
  for (const o of spec.options ?? []) {
    const option = new Option(o.flags, o.description);
    if (o.default !== undefined) option.default(o.default);
    if (o.choices) option.choices([...o.choices]);
    if (o.conflicts) option.conflicts([...o.conflicts]);
    const parse = parserOf(o);
    if (parse) {
      option.argParser((value: string, previous: unknown) => {
        try {
          return parse(value, previous);
        } catch (error) {
          if (error instanceof InvalidOptionValue) throw new InvalidArgumentError(error.message);
          throw error;
        }
      });
    }
    command.addOption(option);
  }
  command.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  command.action(async (...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    const args = received.slice(0, -2) as string[];
    const all = self.optsWithGlobals();
    const global: GlobalOptions = {
      json: Boolean(all.json),
      quiet: Boolean(all.quiet),
      color: all.color !== false,
      verbose: Boolean(all.verbose),
      profile: all.profile,
      timeout: all.timeout,
    };
    const { setEmulatorOption } = await import('./config/emulators.js');
    setEmulatorOption(typeof all.emulator === 'string' ? all.emulator : undefined);
    // Loaded only now. Budget: `plugsmith --help` <= 250 ms (every command's run module at start loads ink, react and the emulator).
    const { default: runCommand } = await spec.load();
    // The one cast of commander's untyped values: defineCommand checked the run function's type against these declarations.
    await runCommand({ args, options: withParentValues(self) as never, global, io, program });
  });
  return command;
}

/** The command's options, plus those commander gave a parent declaring the same flag (`logs redeliver ID --base-url URL`): else lost. */
function withParentValues(command: Command): Record<string, unknown> {
  const options = { ...command.opts() };
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) === 'cli') continue;
    for (let parent = command.parent; parent?.parent; parent = parent.parent) {
      if (parent.getOptionValueSource(key) === 'cli') {
        options[key] = parent.getOptionValue(key);
        break;
      }
    }
  }
  return options;
}

/** Every --base-url and --messaging-url, of every command, must be an http(s) URL: one check for all. */
const URL_FLAGS = ['--base-url', '--messaging-url'];

/** The option's own parser, else the URL check of a URL flag. */
function parserOf(o: OptionSpec): OptionSpec['parse'] {
  const flag = o.flags.split(/[ ,]+/).find((f) => f.startsWith('--'));
  if (o.parse || !flag || !URL_FLAGS.includes(flag)) return o.parse;
  return (value: string) => {
    const problem = httpUrlProblem(value);
    if (problem) throw new InvalidOptionValue(`${flag} ${problem}`);
    return value;
  };
}

function timeoutOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    throw new InvalidArgumentError(
      `--timeout takes seconds, more than 0 and at most 86400, not "${value}"`,
    );
  return n;
}

/** The subcommand of `command` named `word` (by name or alias), if any. */
function subcommandOf(command: Command, word: string): Command | undefined {
  return command.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/**
 * `plugsmith help <words>` and `plugsmith <group> help <words>` as `plugsmith <group> <words> --help`: commander's help
 * command reads only its first word (`help plugins create` printed the group's help) and answers an unknown one with its
 * internal "(outputHelp)". Nothing is ever run: the words after "help" stop at the first command that is not a group
 * (its help, whatever follows), and a word that names no command is the unknown-command error. A "help" that is not
 * where a group's help command stands (`files upload help`, `messages send conv_1 help`) is an argument, left as it is.
 */
function helpAsOption(program: Command, argv: string[]): string[] {
  const at = argv.indexOf('help');
  if (at === -1 || argv.some((word) => word.startsWith('-'))) return argv;
  let command = program;
  for (const word of argv.slice(0, at)) {
    const next = subcommandOf(command, word);
    if (!next) return argv;
    command = next;
  }
  // "help" after a command of its own is that command's argument.
  if (command.commands.length === 0) return argv;
  const path = argv.slice(0, at);
  for (const word of argv.slice(at + 1)) {
    // `help help`: the help of what is reached so far.
    if (word === 'help') break;
    const next = subcommandOf(command, word);
    if (!next) unknownCommand(command, word);
    command = next;
    path.push(word);
    if (command.commands.length === 0) break;
  }
  return [...path, '--help'];
}

/** Runs the CLI with `argv` (without node and the script). Throws; never exits the process. */
export async function main(argv: string[], io: Io): Promise<void> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(helpAsOption(program, argv), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0.
      if (error.exitCode === 0) return;
      throw new UserError(
        `${error.message.replace(/^error: /, '')} (run with --help for usage)`,
        EXIT.USAGE,
      );
    }
    throw error;
  }
}
