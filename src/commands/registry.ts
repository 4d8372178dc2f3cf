import type { CommandSpec } from './types.js';
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
import { providerCommands } from './providers/index.js';
import { fileCommands } from './files/index.js';
import { conversationCommands } from './conversations/index.js';
import { messageCommands } from './messages/index.js';
import { chatCommands } from './chat/index.js';
import { completionCommands } from './completion/index.js';
import { doctorCommands } from './doctor/index.js';
import { devCommands } from './dev/index.js';
import { triggerCommands } from './trigger/index.js';
import { logsCommands } from './logs/index.js';

/** Every command of the CLI. Each noun's list lives beside its handlers. */
export const commands: CommandSpec[] = [...authCommands, ...profileCommands, ...emulatorCommands, ...initCommands, ...projectCommands,
  ...tokenCommands, ...pluginCommands, ...actionCommands, ...eventCommands, ...repoCommands, ...providerCommands,
  ...fileCommands, ...conversationCommands, ...messageCommands, ...chatCommands, ...devCommands, ...triggerCommands, ...logsCommands, ...completionCommands, ...doctorCommands];
