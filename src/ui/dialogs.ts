import { UserError, EXIT } from '../errors.js';
import type { Io } from './io.js';

/**
 * Every prompt of the CLI goes through here. Without a terminal, or under CI, nothing is asked:
 * the missing value is a usage error (exit 2) naming the flag that provides it.
 */
function refuse(io: Io, flag: string, what: string): void {
  if (!io.interactive) throw new UserError(`missing ${what}: pass ${flag} (no prompts without a terminal or under CI)`, EXIT.USAGE);
}

export async function askText(io: Io, opts: { flag: string; message: string; default?: string; validate?: (v: string) => true | string }): Promise<string> {
  refuse(io, opts.flag, opts.message.replace(/[?:]\s*$/, '').toLowerCase());
  const { input } = await import('@inquirer/prompts');
  return input({ message: opts.message, default: opts.default, validate: opts.validate }, { input: io.stdin, output: io.stderr });
}

export async function askSecret(io: Io, opts: { flag: string; message: string }): Promise<string> {
  refuse(io, opts.flag, opts.message.replace(/[?:]\s*$/, '').toLowerCase());
  const { password } = await import('@inquirer/prompts');
  return password({ message: opts.message, mask: '*' }, { input: io.stdin, output: io.stderr });
}

export async function askChoice<T extends string>(io: Io, opts: { flag: string; message: string; choices: Array<{ value: T; name?: string; description?: string }>; default?: T }): Promise<T> {
  refuse(io, opts.flag, opts.message.replace(/[?:]\s*$/, '').toLowerCase());
  const { select } = await import('@inquirer/prompts');
  return select({ message: opts.message, choices: opts.choices, default: opts.default }, { input: io.stdin, output: io.stderr });
}

export async function askMany<T extends string>(io: Io, opts: { flag: string; message: string; choices: Array<{ value: T; name?: string; checked?: boolean }> }): Promise<T[]> {
  refuse(io, opts.flag, opts.message.replace(/[?:]\s*$/, '').toLowerCase());
  const { checkbox } = await import('@inquirer/prompts');
  return checkbox({ message: opts.message, choices: opts.choices }, { input: io.stdin, output: io.stderr });
}

export async function confirm(io: Io, opts: { flag: string; message: string; default?: boolean }): Promise<boolean> {
  refuse(io, opts.flag, 'confirmation');
  const { confirm: ask } = await import('@inquirer/prompts');
  return ask({ message: opts.message, default: opts.default }, { input: io.stdin, output: io.stderr });
}

/** Reads all of stdin (for `--token -`), trimmed. */
export async function readStdin(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk;
  return text.trim();
}
