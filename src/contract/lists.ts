// Enum lists that the CLI needs before it parses anything (option choices in `--help`), kept
// apart from TypeBox: `enums.ts` builds the schemas from these, and importing TypeBox (some 200
// modules) at every start of the CLI would triple the start time of `plugsmith --help`.

/** Plugin types: event handlers attach to agents, data providers to repositories, apps to apps. */
export const PLUGIN_TYPES = ['EVENT_HANDLER', 'APP', 'DATA_PROVIDER'] as const;

/** Every event kind the platform dispatches to plugins, in the spec's order. */
export const EVENT_KINDS = [
  'WEBHOOK_CHALLENGE',
  'PLUGIN_INSTALLED',
  'PLUGIN_UNINSTALLED',
  'AGENT_MESSAGE_RECEIVED',
  'REPOSITORY_FILE_ADDED',
  'REPOSITORY_FILE_REMOVED',
] as const;
