import { integerOption, type OptionSpec, type OptionsOf } from '../types.js';
import { orgOption, targetOptions } from '../list-options.js';

/** The options of `plugsmith dev`, apart from its declaration so that its run function can take its type from them. */
export const devOptions = [
  {
    flags: '--cmd <command>',
    description:
      "command that starts the plugin, run in the manifest's folder (default: the manifest's dev.command, else npm run dev)",
  },
  { flags: '--manifest <path>', description: 'the manifest file', default: 'plugsmith.json' },
  {
    flags: '--plugin-port <port>',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      "PORT given to the plugin (and to ${PORT} in the manifest's webhookUrl), which must be free (0: a free one); default: the webhookUrl's port, or a free one when the manifest's default port is taken",
    parse: integerOption('--plugin-port', 0, 65535),
  },
  {
    flags: '--emulator-port <port>',
    description:
      'management port of an emulator dev starts; it must be free (default: 4010, or a free one when taken; 0: a free one)',
    parse: integerOption('--emulator-port', 0, 65535),
  },
  {
    flags: '--messaging-port <port>',
    description:
      'messaging port of an emulator dev starts; it must be free (default: 4011, or a free one when taken; 0: a free one)',
    parse: integerOption('--messaging-port', 0, 65535),
  },
  {
    flags: '--data-dir <dir>',
    description:
      'store of an emulator dev starts (default: .plugsmith/emulator beside plugsmith.json, never through a symbolic link)',
  },
  {
    flags: '--verify-timeout <seconds>',
    description: 'how long to wait for the plugin to answer and verify its webhook',
    default: 30,
    parse: integerOption('--verify-timeout', 1, 3600),
  },
  { flags: '--no-installs', description: "do not create the manifest's installs" },
  {
    flags: '--faults <profile>',
    description:
      'inject faults into the deliveries, e.g. duplicate=0.2,delay=100-500ms,reorder=0.1,drop=0.1 (docs/fault-injection.md); on a running emulator until dev stops',
  },
  {
    flags: '--faults-seed <seed>',
    description: 'seed the faults are drawn from (default: a random one, printed)',
  },
  {
    flags: '--open',
    description:
      "open the emulator's web dashboard in the default browser (env BROWSER names another)",
  },
  orgOption,
  ...targetOptions,
] as const satisfies readonly OptionSpec[];

/** What `plugsmith dev` receives. */
export type DevFlags = OptionsOf<typeof devOptions>;
