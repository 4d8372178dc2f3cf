import { integerOption, type OptionSpec, type OptionsOf } from '../types.js';
import { targetOptions } from '../list-options.js';
import { timeOption } from '../logs/filters.js';

// The options of `plugsmith scenario run` and `record`, apart from their declarations so that the
// handlers can take their types from them.

const projectOptions = [
  {
    flags: '--plugin <pluginId>',
    description: 'the plugin under test (default: the scenario\'s "plugin", else this project\'s)',
  },
  { flags: '--manifest <path>', description: 'the manifest file', default: 'plugsmith.json' },
] as const satisfies readonly OptionSpec[];

/** `--allow-env A,B`, repeatable: every name given, in order. */
function collectNames(value: string, previous: unknown): string[] {
  return [...(Array.isArray(previous) ? (previous as string[]) : []), value];
}

export const scenarioRunOptions = [
  {
    flags: '--allow-env <names>',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${env.NAME} is a scenario's reference, not a template literal
      'environment variables the scenarios may expand (${env.NAME}), comma-separated, repeatable; also PLUGSMITH_SCENARIO_ENV. A name a file declares and you did not allow stops the run before anything is sent',
    parse: collectNames,
  },
  {
    flags: '--junit <file>',
    description: 'also write a JUnit XML report there (one testcase per scenario)',
  },
  {
    flags: '--faults <profile>',
    description:
      'run every scenario under this fault profile, e.g. duplicate=1 (docs/fault-injection.md)',
  },
  {
    flags: '--faults-seed <seed>',
    description: 'seed the faults are drawn from (default: a random one, printed)',
  },
  {
    flags: '--fault-matrix',
    description:
      'run each scenario clean, then under each fault kind alone; tell which fault broke which scenario, with the seed',
    conflicts: ['faults'],
  },
  {
    flags: '--start',
    description:
      'start everything for the run (CI): an in-memory emulator, the manifest deployed, the plugin by its dev command on a free port, verified and installed; stopped after',
  },
  {
    flags: '--start-timeout <seconds>',
    description:
      'with --start: how long the plugin may take to answer its webhook challenge and be installed (default 15); one that exits or crashes first fails the run at once (exit code 8)',
    parse: integerOption('--start-timeout', 1, 600),
  },
  {
    flags: '--seed <file>',
    description:
      'with --start: seed file of its emulator (users, orgs, tokens, agents, characters, API keys; as `emulator exec --seed`), for a journey that starts from a known store',
  },
  ...projectOptions,
  ...targetOptions,
] as const satisfies readonly OptionSpec[];

export type ScenarioRunFlags = OptionsOf<typeof scenarioRunOptions>;

export const scenarioRecordOptions = [
  {
    flags: '-o, --output <file>',
    description: 'the scenario file to write (e.g. scenarios/chat.json)',
  },
  {
    flags: '--since <time>',
    description:
      'what happened since this time: ISO 8601, or a duration back from now (90s, 2m, 1h); default: since `plugsmith dev` started',
    parse: timeOption('--since'),
  },
  { flags: '--name <name>', description: 'the scenario name (default: from the file name)' },
  { flags: '--force', description: 'overwrite the file when it exists' },
  ...projectOptions,
  ...targetOptions,
] as const satisfies readonly OptionSpec[];

export type ScenarioRecordFlags = OptionsOf<typeof scenarioRecordOptions>;
