import type { Command } from 'commander';
import type { Io } from '../ui/io.js';

/** Options every command accepts. */
export interface GlobalOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
  verbose: boolean;
  profile?: string;
  /** --timeout in seconds, when given. */
  timeout?: number;
}

/** One option of a command, in commander's flag syntax. */
export interface OptionSpec {
  flags: string;
  description: string;
  default?: unknown;
  choices?: string[];
  /** Options (by attribute name, e.g. `dataDir`) that may not be given with this one; defaults do not count. */
  conflicts?: string[];
  /** Converts the raw string (and the previous value, for repeatable options). */
  parse?: (value: string, previous: unknown) => unknown;
}

/** What a command handler receives. */
export interface CommandInput<O = Record<string, any>> {
  args: string[] & unknown[];
  options: O;
  global: GlobalOptions;
  io: Io;
  /** The whole program (every command), for commands that describe it, such as `completion`. */
  program: Command;
}

export type CommandHandler = (input: CommandInput) => Promise<void>;

/**
 * A command, declared apart from its handler so that `--help` and the registry load no
 * command code: `load` imports the handler only when the command runs.
 */
export interface CommandSpec {
  /** Words of the command, e.g. ['plugins', 'create']. */
  path: string[];
  summary: string;
  /** Shown under --help; every command has at least one. */
  examples: string[];
  /**
   * commander argument syntax, e.g. ['<pluginId>'] or ['[paths...]']; an object adds a
   * description and the values help and completion offer (any case is still accepted).
   */
  args?: Array<string | { name: string; description: string; choices?: readonly string[] }>;
  options?: OptionSpec[];
  load: () => Promise<{ default: CommandHandler }>;
}

/** Helper that keeps command declarations typed. */
export function defineCommand(spec: CommandSpec): CommandSpec {
  return spec;
}

/** Parses an integer option or fails with a usage error naming the flag. */
export function integerOption(flag: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidOptionValue(`${flag} must be a whole number from ${min} to ${max}, not "${value}"`);
    }
    return n;
  };
}

/** Raised by option parsers; becomes a usage error (exit 2). */
export class InvalidOptionValue extends Error {}
