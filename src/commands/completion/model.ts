import type { Command } from 'commander';

/** One option as completion sees it. */
export interface CompletionOption {
  /** e.g. ['-y', '--yes'] */
  names: string[];
  description: string;
  takesValue: boolean;
  choices: string[];
}

/** One node of the command tree: its words, subcommands and options (globals included). */
export interface CompletionNode {
  path: string[];
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  options: CompletionOption[];
  /** Values of the command's arguments that completion offers (e.g. trigger's event types). */
  values: string[];
}

function optionsOf(command: Command): CompletionOption[] {
  return command.options.map((o) => ({
    names: [o.short, o.long].filter((n): n is string => Boolean(n)),
    description: o.description,
    takesValue: o.required || o.optional,
    choices: o.argChoices ?? [],
  }));
}

/** Walks the commander program into a flat list of nodes, the root first. */
export function completionModel(program: Command): CompletionNode[] {
  const globals = [...optionsOf(program), { names: ['-h', '--help'], description: 'show help', takesValue: false, choices: [] }];
  const nodes: CompletionNode[] = [];
  const walk = (command: Command, path: string[]) => {
    const own = path.length === 0 ? [] : optionsOf(command);
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((c) => ({ name: c.name(), description: c.description() })),
      options: [...own, ...globals],
      values: command.registeredArguments.flatMap((a) => a.argChoices ?? []),
    });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return nodes;
}
