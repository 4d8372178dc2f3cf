import type { GlobalOptions } from '../commands/types.js';
import { env } from '../config/env.js';
import type { Io } from './io.js';

/** chalk (and supports-color, tty, os) loads only with a terminal on stdout or stderr and NO_COLOR unset: scripts and CI never load it. */
const chalk = !env.noColor() && (process.stdout.isTTY || process.stderr.isTTY) ? await import('chalk') : undefined;

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
  if (!chalk || !global.color || env.noColor() || !io[stream].isTTY) return PLAIN;
  const { Chalk, supportsColor } = chalk;
  const style = new Chalk({ level: Math.max(1, supportsColor ? supportsColor.level : 1) as 1 | 2 | 3 });
  return { bold: style.bold, dim: style.dim, green: style.green, red: style.red, yellow: style.yellow, cyan: style.cyan };
}

const plain = (s: string): string => s;
const PLAIN: Style = { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };
