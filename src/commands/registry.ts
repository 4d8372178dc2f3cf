import type { CommandSpec } from './types.js';
import { emulatorCommands } from './emulator/index.js';
import { authCommands } from './auth/index.js';
import { profileCommands } from './profiles/index.js';
import { projectCommands } from './project/index.js';

/** Every command of the CLI. Each noun's list lives beside its handlers. */
export const commands: CommandSpec[] = [...authCommands, ...profileCommands, ...emulatorCommands, ...projectCommands];
