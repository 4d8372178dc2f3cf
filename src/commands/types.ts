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
  choices?: readonly string[];
  /** Options (by attribute name, e.g. `dataDir`) that may not be given with this one; defaults do not count. */
  conflicts?: readonly string[];
  /** Converts the raw string (and the previous value, for repeatable options). */
  parse?: (value: string, previous: unknown) => unknown;
}

/** `parent-type` -> `parentType`, as commander names an option's value. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
/** The long flag of a flags string (`-y, --yes` -> `yes`, `--parent-type <type>` -> `parent-type`). */
type LongFlag<F extends string> = F extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;
/** The value part of a flags string (`<type>`, `[file]`, `<ids...>`), or '' for a boolean flag. */
type ValuePart<F extends string> = F extends `${string}--${string} ${infer Value}` ? Value : '';
/** The attribute name commander gives an option. */
type OptionKey<F extends string> =
  LongFlag<F> extends `no-${infer Name}` ? CamelCase<Name> : CamelCase<LongFlag<F>>;
/** What commander stores for an option that was given. */
type GivenValue<S extends OptionSpec> = S extends { parse: (...args: never[]) => infer Parsed }
  ? Parsed
  : ValuePart<S['flags']> extends ''
    ? boolean
    : ValuePart<S['flags']> extends `${string}...${string}`
      ? string[]
      : ValuePart<S['flags']> extends `[${string}`
        ? string | true
        : S extends { choices: readonly (infer Choice)[] }
          ? Choice
          : string;
/** An option's value as the run function receives it: undefined when not given, unless negated or defaulted. */
type OptionValue<S extends OptionSpec> =
  LongFlag<S['flags']> extends `no-${string}`
    ? boolean
    : S extends { default: infer Default }
      ? Exclude<GivenValue<S>, undefined> | Default
      : GivenValue<S> | undefined;

/** The options a command's run function receives, inferred from its declarations (commander's camelCase names). */
export type OptionsOf<O extends readonly OptionSpec[]> = {
  [S in O[number] as OptionKey<S['flags']>]: OptionValue<S>;
};

/** Flags that pick the target and credentials; every API command accepts them through its profile. */
export interface TargetFlags {
  baseUrl?: string;
  messagingUrl?: string;
  org?: string;
}

/** What a command's run function receives; `O` is its options, as declared (see `OptionsOf`). */
export interface CommandInput<O = TargetFlags> {
  args: string[] & unknown[];
  options: O;
  global: GlobalOptions;
  io: Io;
  /** The whole program, for commands that describe it (`completion`). */
  program: Command;
}

/** What a command runs (the default export of its run module), typed by the options it reads. */
export type RunCommand<O = TargetFlags> = (input: CommandInput<O>) => Promise<void>;

/** A command, declared apart from what it runs so that `--help` loads no command code: `load` imports it when it runs. */
export interface CommandSpec<O extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** e.g. ['plugins', 'create'] */
  path: string[];
  summary: string;
  /** Shown under --help; every command has at least one. */
  examples: string[];
  /** commander argument syntax (`<pluginId>`, `[paths...]`); an object adds a description and the values help and completion offer. */
  args?: Array<string | { name: string; description: string; choices?: readonly string[] }>;
  options?: O;
  /** Loads the run function, which must accept the options the declarations give. */
  load: () => Promise<{ default: RunCommand<OptionsOf<O>> }>;
}

/** A declared command as the registry holds it: its run function's option type is checked and then forgotten. */
export type AnyCommandSpec = Omit<CommandSpec, 'load'> & {
  load: () => Promise<{ default: RunCommand<never> }>;
};

/** Declares a command, checking that its run function reads only the options declared, with their types. */
export function defineCommand<const O extends readonly OptionSpec[] = readonly []>(
  spec: CommandSpec<O>,
): AnyCommandSpec {
  return spec;
}

/** Parses an integer option or fails with a usage error naming the flag. */
export function integerOption(flag: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidOptionValue(
        `${flag} must be a whole number from ${min} to ${max}, not "${value}"`,
      );
    }
    return n;
  };
}

/** Raised by option parsers; becomes a usage error (exit 2). */
export class InvalidOptionValue extends Error {}
