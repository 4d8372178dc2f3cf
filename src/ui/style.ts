import { Chalk, supportsColor } from 'chalk';
import type { GlobalOptions } from '../commands/types.js';
import { env } from '../config/env.js';
import type { Io } from './io.js';

const COLOURS = ['bold', 'dim', 'green', 'red', 'yellow', 'cyan'] as const;

/** Colour functions for one stream; each is the identity when colour is off. */
export type Style = Record<(typeof COLOURS)[number], (s: string) => string>;

/** The style for stdout (default) or stderr: colour only on a terminal, unless `--no-color` or NO_COLOR. */
export function styleFor(
  io: Io,
  global: Pick<GlobalOptions, 'color'>,
  stream: 'stdout' | 'stderr' = 'stdout',
): Style {
  if (!global.color || env.noColor() || !io[stream].isTTY) return PLAIN;
  return new Chalk({ level: Math.max(1, supportsColor ? supportsColor.level : 1) as 1 | 2 | 3 });
}

const PLAIN = Object.fromEntries(COLOURS.map((name) => [name, (s: string) => s])) as Style;
