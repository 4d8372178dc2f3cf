import type { AnyCommandSpec } from './types.js';
import { emulatorCommands } from './emulator/index.js';
import { authCommands } from './auth/index.js';
import { profileCommands } from './profiles/index.js';
import { projectCommands } from './project/index.js';
import { initCommands } from './init/index.js';
import { tokenCommands } from './tokens/index.js';
import { pluginCommands } from './plugins/index.js';
import { actionCommands } from './actions/index.js';
import { eventCommands } from './events/index.js';
import { repoCommands } from './repos/index.js';
import { installCommands } from './installs/commands.js';
import { fileCommands } from './files/index.js';
import { conversationCommands } from './conversations/index.js';
import { messageCommands } from './messages/index.js';
import { chatCommands } from './chat/index.js';
import { completionCommands } from './completion/index.js';
import { doctorCommands } from './doctor/index.js';
import { devCommands } from './dev/index.js';
import { triggerCommands } from './trigger/index.js';
import { logsCommands } from './logs/index.js';
import { checkCommands } from './check/index.js';
import { mcpCommands } from './mcp/index.js';
import { scenarioCommands } from './scenario/index.js';
import { parityCommands } from './parity/index.js';

/** Every command of the CLI. Each noun's list lives beside its run module (run.ts or a file named for the command). */
export const commands: AnyCommandSpec[] = [
  ...authCommands,
  ...profileCommands,
  ...emulatorCommands,
  ...initCommands,
  ...projectCommands,
  ...tokenCommands,
  ...pluginCommands,
  ...actionCommands,
  ...eventCommands,
  ...repoCommands,
  ...installCommands('REPOSITORY'),
  ...installCommands('AGENT'),
  ...installCommands('APP'),
  ...fileCommands,
  ...conversationCommands,
  ...messageCommands,
  ...chatCommands,
  ...devCommands,
  ...triggerCommands,
  ...checkCommands,
  ...logsCommands,
  ...mcpCommands,
  ...scenarioCommands,
  ...parityCommands,
  ...completionCommands,
  ...doctorCommands,
];

/** What each group of commands does, shown in `plugsmith --help` and the group's own help. */
export const groups: Record<string, string> = {
  actions: 'Create, list, update and delete the actions of a plugin',
  apps: 'Install APP plugins on apps, list and remove them',
  conversations: 'Create and show conversations with characters (messaging API)',
  emulator: 'Start the local emulator; export, import, reset or describe it (OpenAPI)',
  events: 'Create, list, update and delete the external events of a plugin',
  files: 'Upload files, list them and show their status and download URL',
  handlers: 'Install EVENT_HANDLER plugins on agents, list and remove them',
  messages: 'Send and list the messages of a conversation (messaging API)',
  parity: "Record the real platform's answers as shapes and check the emulator against them",
  plugins: 'Create, update, verify and delete plugins; their secrets; the marketplace',
  profiles: 'List, switch and remove the saved targets and credentials',
  providers: 'Install DATA_PROVIDER plugins on repositories, list and remove them',
  repos: 'Create, list and show repositories, and manage their files',
  'repos files': 'Add, list and remove the files of a repository',
  scenario: "Run and record scenarios: a plugin's whole journey, checked at each step",
  tokens: 'Create API tokens',
};
