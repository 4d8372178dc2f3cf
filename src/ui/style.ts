import { Chalk, supportsColor } from 'chalk';
import type { GlobalOptions } from '../commands/types.js';
import { env } from '../config/env.js';
import type { Io } from './io.js';

/** Colour functions for one stream; each is the identity when colour is off. */
export interface Style {
  bold: (s: string) => string;
  dim: (s: string) => string;
  green: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
}

/** The style for stdout (default) or stderr: colour only on a terminal, unless `--no-color` or NO_COLOR. */
export function styleFor(io: Io, global: Pick<GlobalOptions, 'color'>, stream: 'stdout' | 'stderr' = 'stdout'): Style {
  const on = global.color && !env.noColor() && Boolean(io[stream].isTTY);
  const chalk = new Chalk({ level: on ? Math.max(1, supportsColor ? supportsColor.level : 1) as 1 | 2 | 3 : 0 });
  return { bold: chalk.bold, dim: chalk.dim, green: chalk.green, red: chalk.red, yellow: chalk.yellow, cyan: chalk.cyan };
}
