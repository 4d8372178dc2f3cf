import { Writable, Readable } from 'node:stream';
import type { Command, Option } from 'commander';
import { buildProgram } from '../src/main.js';
import { commands, groups } from '../src/commands/registry.js';
import type { AnyCommandSpec, OptionSpec } from '../src/commands/types.js';

/**
 * docs/commands.md, written from the command registry (src/commands/registry.ts) and the program
 * commander builds from it: every command's usage, arguments, options and examples. `npm run docs`
 * writes it; test/docs/command-reference.test.ts fails when the committed file differs.
 */

/** The hand-written page that explains a group (or a command) beyond its options, by the first words of its path. */
const GUIDES: Record<string, string> = {
  init: 'first-plugin.md',
  dev: 'dev-loop.md',
  trigger: 'dev-loop.md',
  check: 'is-my-plugin-ready.md',
  logs: 'dev-loop.md',
  emulator: 'emulator.md',
  login: 'platform.md',
  whoami: 'platform.md',
  profiles: 'platform.md',
  deploy: 'platform.md',
  pull: 'platform.md',
  tokens: 'platform.md',
  plugins: 'resources.md',
  actions: 'resources.md',
  events: 'resources.md',
  repos: 'resources.md',
  providers: 'resources.md',
  handlers: 'resources.md',
  apps: 'resources.md',
  files: 'resources.md',
  conversations: 'resources.md',
  messages: 'resources.md',
  chat: 'chat.md',
  completion: 'resources.md',
  doctor: 'platform.md',
};

const silent = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/** `a|b` and backquotes would break a table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultOf(option: OptionSpec): string {
  if (option.default === undefined || typeof option.default === 'function') return '';
  return ` (default: \`${JSON.stringify(option.default)}\`)`;
}

function optionsTable(
  options: readonly {
    flags: string;
    description: string;
    choices?: readonly string[];
    extra?: string;
  }[],
): string[] {
  if (options.length === 0) return [];
  const rows = options.map(
    (o) =>
      `| \`${cell(o.flags)}\` | ${cell(o.description)}${o.choices ? ` (one of ${o.choices.map((c) => `\`${c}\``).join(', ')})` : ''}${o.extra ?? ''} |`,
  );
  return ['| option | meaning |', '|---|---|', ...rows, ''];
}

function argumentName(arg: NonNullable<AnyCommandSpec['args']>[number]): string {
  return typeof arg === 'string' ? arg : arg.name;
}

/** `#plugsmith-plugins-create`, as GitHub anchors a heading `plugsmith plugins create`. */
function anchor(path: string[]): string {
  return ['plugsmith', ...path].join('-').toLowerCase();
}

function commandSection(spec: AnyCommandSpec): string[] {
  const name = ['plugsmith', ...spec.path].join(' ');
  const args = (spec.args ?? []).map(argumentName).join(' ');
  const lines = [
    `### ${name}`,
    '',
    spec.summary + '.',
    '',
    '```',
    `${name}${args ? ' ' + args : ''}${spec.options?.length ? ' [options]' : ''}`,
    '```',
    '',
  ];
  const described = (spec.args ?? []).filter((a) => typeof a !== 'string');
  if (described.length > 0) {
    lines.push('| argument | meaning |', '|---|---|');
    for (const a of described)
      lines.push(
        `| \`${a.name}\` | ${cell(a.description)}${a.choices ? ` (one of ${a.choices.map((c) => `\`${c}\``).join(', ')})` : ''} |`,
      );
    lines.push('');
  }
  lines.push(...optionsTable((spec.options ?? []).map((o) => ({ ...o, extra: defaultOf(o) }))));
  lines.push('Examples:', '', '```sh', ...spec.examples, '```', '');
  return lines;
}

/** The whole of docs/commands.md. */
export function commandReference(): string {
  const io = { stdout: silent(), stderr: silent(), stdin: Readable.from([]), interactive: false };
  const program: Command = buildProgram(io);
  const globals = program.options.map((o: Option) => ({
    flags: o.flags,
    description: o.description ?? '',
  }));
  globals.push({
    flags: '-h, --help',
    description: 'help, with examples and these global options, for any command',
  });

  const firstWords = [...new Set(commands.map((c) => c.path[0]))];
  const out: string[] = [
    '# Command reference',
    '',
    '<!-- Generated from the command registry (src/commands/registry.ts) by `npm run docs`: do not edit by hand. -->',
    '',
    'Every command of `plugsmith`, as `plugsmith <command> --help` shows it. Each group links to the page',
    'that explains it beyond its options. A group typed alone (`plugsmith plugins`) prints its help and',
    'exits 0. A mistyped command, subcommand, option or event kind is a usage error (exit 2) that names',
    'the closest one (`(Did you mean trigger?)`); the exit codes are in [exit-codes.md](exit-codes.md).',
    '',
    '## Global options',
    '',
    'Accepted by every command:',
    '',
    ...optionsTable(globals),
    '## Commands',
    '',
    ...firstWords.map((word) => {
      const specs = commands.filter((c) => c.path[0] === word);
      return `- **${word}**: ${specs.map((s) => `[\`${s.path.join(' ')}\`](#${anchor(s.path)})`).join(', ')}`;
    }),
    '',
  ];
  for (const word of firstWords) {
    out.push(`## ${word}`, '');
    if (groups[word]) out.push(groups[word] + '.', '');
    if (GUIDES[word]) out.push(`Explained in [${GUIDES[word]}](${GUIDES[word]}).`, '');
    for (const spec of commands.filter((c) => c.path[0] === word))
      out.push(...commandSection(spec));
  }
  return out.join('\n').replace(/\n+$/, '\n');
}
