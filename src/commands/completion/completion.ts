import type { Command } from 'commander';
import type { RunCommand } from '../types.js';
import { UserError, EXIT } from '../../errors.js';

/** One option as completion sees it. */
interface CompletionOption {
  /** e.g. ['-y', '--yes'] */
  names: string[];
  description: string;
  takesValue: boolean;
  choices: string[];
}

/** One node of the command tree: its words, subcommands and options (globals included). */
interface CompletionNode {
  path: string[];
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  options: CompletionOption[];
  /** Values of the command's arguments that completion offers (e.g. trigger's event kinds). */
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
function completionModel(program: Command): CompletionNode[] {
  const globals = [
    ...optionsOf(program),
    { names: ['-h', '--help'], description: 'show help', takesValue: false, choices: [] },
  ];
  const nodes: CompletionNode[] = [];
  const walk = (command: Command, path: string[]) => {
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((c) => ({ name: c.name(), description: c.description() })),
      options: path.length === 0 ? globals : [...optionsOf(command), ...globals],
      values: command.registeredArguments.flatMap((a) => a.argChoices ?? []),
    });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return nodes;
}

// Each script finds the command path the same way: the words typed so far that, appended to the
// path, name a known command (so option values like `--org org_x` are skipped), then offers that
// node's subcommands and options, or an option's choices right after it.

const key = (node: CompletionNode) => node.path.join(' ');

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The paths a script knows, as a shell array's items. */
function knownPaths(nodes: CompletionNode[], quote = shellQuote): string {
  return nodes
    .filter((n) => n.path.length > 0)
    .map((n) => quote(key(n)))
    .join(' ');
}

/** The case on the previous word that offers an option's choices right after it ('' when no option has any). */
function choicesCase(n: CompletionNode, offer: (o: CompletionOption) => string): string {
  const choices = n.options.filter((o) => o.choices.length).map(offer);
  return choices.length ? `      case "$prev" in\n${choices.join('\n')}\n      esac\n` : '';
}

/** The loop bash and zsh share over the words typed so far (as `w`): the command path they name, then its case. */
function walk(cases: string): string {
  return `    [[ "$w" == -* ]] && continue
    for p in "\${known[@]}"; do
      if [[ "$p" == "\${cmdpath:+$cmdpath }$w" ]]; then cmdpath="$p"; break; fi
    done
  done
  case "$cmdpath" in
${cases}
  esac`;
}

/** Bash: `source <(plugsmith completion bash)`. */
function bashScript(nodes: CompletionNode[]): string {
  const cases = nodes
    .map((n) => {
      const words = [
        ...n.subcommands.map((s) => s.name),
        ...n.values,
        ...n.options.flatMap((o) => o.names.filter((x) => x.startsWith('--'))),
      ].join(' ');
      const prev = choicesCase(
        n,
        (o) =>
          `      ${o.names.join('|')}) COMPREPLY=($(compgen -W ${shellQuote(o.choices.join(' '))} -- "$cur")); return ;;`,
      );
      return `    ${shellQuote(key(n))})\n${prev}      words=${shellQuote(words)} ;;`;
    })
    .join('\n');
  return `# plugsmith bash completion. Install: source <(plugsmith completion bash)
_plugsmith() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmdpath="" words="" w i p
  local -a known=(${knownPaths(nodes)})
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
${walk(cases)}
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _plugsmith plugsmith
`;
}

function zshEscape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/'/g, `'\\''`);
}

/** Zsh: save as `_plugsmith` on $fpath (or `source <(plugsmith completion zsh)` after compinit). */
function zshScript(nodes: CompletionNode[]): string {
  const cases = nodes
    .map((n) => {
      const items = [
        ...n.subcommands.map((s) => `'${zshEscape(s.name)}:${zshEscape(s.description)}'`),
        ...n.values.map((v) => `'${zshEscape(v)}'`),
        ...n.options.flatMap((o) =>
          o.names
            .filter((x) => x.startsWith('--'))
            .map((name) => `'${zshEscape(name)}:${zshEscape(o.description)}'`),
        ),
      ].join(' ');
      const prev = choicesCase(
        n,
        (o) => `        (${o.names.join('|')}) compadd -- ${o.choices.join(' ')}; return ;;`,
      );
      return `    (${shellQuote(key(n))})\n${prev}      items=(${items}) ;;`;
    })
    .join('\n');
  return `#compdef plugsmith
# plugsmith zsh completion. Install: plugsmith completion zsh > "\${fpath[1]}/_plugsmith"
_plugsmith() {
  local cmdpath="" w p prev="\${words[CURRENT-1]}"
  local -a items known=(${knownPaths(nodes)})
  for w in "\${(@)words[2,CURRENT-1]}"; do
${walk(cases)}
  _describe -t commands 'plugsmith' items
}
compdef _plugsmith plugsmith
`;
}

function fishEscape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/'/g, `\\'`);
}

/** Fish: save as ~/.config/fish/completions/plugsmith.fish. */
function fishScript(nodes: CompletionNode[]): string {
  const lines: string[] = [];
  for (const n of nodes) {
    // The path is printed with a prefix so the root (an empty path) is still one argument.
    const condition = `-n "test (__plugsmith_path) = 'p:${fishEscape(key(n))}'"`;
    for (const s of n.subcommands)
      lines.push(
        `complete -c plugsmith ${condition} -a '${fishEscape(s.name)}' -d '${fishEscape(s.description)}'`,
      );
    if (n.values.length)
      lines.push(`complete -c plugsmith ${condition} -a '${fishEscape(n.values.join(' '))}'`);
    for (const o of n.options) {
      const long = o.names.find((x) => x.startsWith('--'))?.slice(2);
      const short = o.names.find((x) => !x.startsWith('--'))?.slice(1);
      if (!long) continue;
      const value = o.takesValue
        ? o.choices.length
          ? ` -x -a '${o.choices.join(' ')}'`
          : ' -r'
        : '';
      lines.push(
        `complete -c plugsmith ${condition}${short ? ` -s ${short}` : ''} -l ${long}${value} -d '${fishEscape(o.description)}'`,
      );
    }
  }
  return `# plugsmith fish completion. Install: plugsmith completion fish > ~/.config/fish/completions/plugsmith.fish
set -g __plugsmith_paths ${knownPaths(nodes, (path) => `'${fishEscape(path)}'`)}
function __plugsmith_path
  set -l cmdpath ''
  for w in (commandline -opc)[2..-1]
    string match -q -- '-*' $w; and continue
    set -l candidate (string trim -- "$cmdpath $w")
    contains -- $candidate $__plugsmith_paths; and set cmdpath $candidate
  end
  echo "p:$cmdpath"
end
complete -c plugsmith -f
${lines.join('\n')}
`;
}

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** Prints the completion script of a shell, made from the same registry as the commands. */
const completion: RunCommand = async ({ args, io, program }) => {
  const shell = args[0] as keyof typeof SHELLS;
  if (!Object.hasOwn(SHELLS, shell))
    throw new UserError(`unknown shell "${args[0]}": use bash, zsh or fish`, EXIT.USAGE);
  io.stdout.write(SHELLS[shell](completionModel(program)));
};

export default completion;
