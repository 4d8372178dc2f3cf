import { defineCommand } from '../types.js';

/** `plugsmith completion bash|zsh|fish`. */
export const completionCommands = [
  defineCommand({
    path: ['completion'],
    summary: 'Print a shell completion script (bash, zsh or fish), generated from the commands',
    examples: [
      'source <(plugsmith completion bash)          # in ~/.bashrc',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own ${fpath[1]}, printed for the user to run
      'plugsmith completion zsh > "${fpath[1]}/_plugsmith"',
      'plugsmith completion fish > ~/.config/fish/completions/plugsmith.fish',
    ],
    args: ['<shell>'],
    load: () => import('./completion.js'),
  }),
];
