import { UserError, EXIT } from '../errors.js';
import type { Io } from './io.js';
import { escapeControls, rawStream } from './terminal-text.js';

/** Prompts draw the terminal (cursor moves), so they get stderr unfiltered; every text they show is escaped here instead. */
function terminal(io: Io) {
  return { input: io.stdin, output: rawStream(io.stderr) };
}

function safeChoices<C extends { name?: string; description?: string; value: string }>(
  choices: C[],
): C[] {
  return choices.map((c) => ({
    ...c,
    name: escapeControls(c.name ?? c.value),
    description: c.description && escapeControls(c.description),
  }));
}

/** Every prompt goes through here; without a terminal or under CI the missing value is a usage error naming its flag. */
function prompts(io: Io, flag: string, what: string) {
  if (!io.interactive)
    throw new UserError(
      `missing ${what.replace(/[?:]\s*$/, '').toLowerCase()}: pass ${flag} (no prompts without a terminal or under CI)`,
      EXIT.USAGE,
    );
  return import('@inquirer/prompts');
}

/**
 * Without a terminal (or under CI) nothing can be asked: a command that would ask for several values names every one
 * missing at once (`flags`), so a script learns them in one failed run instead of one run per flag. One missing value
 * is left to its prompt's own message, unless there is an `alternative` (`--yes to take the defaults`) to name too.
 */
export function refuseUnasked(io: Io, flags: string[], alternative?: string): void {
  if (io.interactive || flags.length === 0) return;
  if (flags.length === 1 && alternative === undefined) return;
  const list =
    flags.length === 1 ? flags[0] : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)}`;
  throw new UserError(
    `missing ${list}: pass ${flags.length === 1 ? 'it' : 'them'}${alternative ? `, or ${alternative}` : ''} (no prompts without a terminal or under CI)`,
    EXIT.USAGE,
  );
}

/** Asks for a line of text. */
export async function askText(
  io: Io,
  opts: {
    flag: string;
    message: string;
    default?: string;
    validate?: (v: string) => true | string;
  },
): Promise<string> {
  const { input } = await prompts(io, opts.flag, opts.message);
  return input(
    {
      message: escapeControls(opts.message),
      default: opts.default === undefined ? undefined : escapeControls(opts.default),
      validate: opts.validate,
    },
    terminal(io),
  );
}

/** Asks for a secret, masked. */
export async function askSecret(io: Io, opts: { flag: string; message: string }): Promise<string> {
  const { password } = await prompts(io, opts.flag, opts.message);
  return password({ message: escapeControls(opts.message), mask: '*' }, terminal(io));
}

/** Asks for one of the choices. */
export async function askChoice<T extends string>(
  io: Io,
  opts: {
    flag: string;
    message: string;
    choices: Array<{ value: T; name?: string; description?: string }>;
    default?: T;
  },
): Promise<T> {
  const { select } = await prompts(io, opts.flag, opts.message);
  return select(
    {
      message: escapeControls(opts.message),
      choices: safeChoices(opts.choices),
      default: opts.default,
    },
    terminal(io),
  );
}

/** Asks for any of the choices. */
export async function askMany<T extends string>(
  io: Io,
  opts: {
    flag: string;
    message: string;
    choices: Array<{ value: T; name?: string; checked?: boolean }>;
  },
): Promise<T[]> {
  const { checkbox } = await prompts(io, opts.flag, opts.message);
  return checkbox(
    { message: escapeControls(opts.message), choices: safeChoices(opts.choices) },
    terminal(io),
  );
}

/** Asks yes or no. */
export async function confirm(
  io: Io,
  opts: { flag: string; message: string; default?: boolean },
): Promise<boolean> {
  const { confirm: ask } = await prompts(io, opts.flag, 'confirmation');
  return ask({ message: escapeControls(opts.message), default: opts.default }, terminal(io));
}

/** Reads all of stdin (for `--token -`), trimmed. */
export async function readStdin(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk;
  return text.trim();
}
