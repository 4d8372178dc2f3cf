import { z } from 'zod';
import { result } from '../shape.js';
import { defineTool } from '../tool.js';

export const resetEmulator = defineTool({
  name: 'reset_emulator',
  title: 'Reset the emulator',
  description:
    'DESTRUCTIVE: puts the emulator back to its seed. It removes every plugin, instance, delivery (the whole log), conversation, message, file, repository and token created since it started; the seed (its org, agents, characters, token and API key) is loaded again, and the fault profile stays (its faults are drawn from the start again). The plugin of this project is gone too: restart `plugsmith dev` to deploy and install it again. Needs confirm: true.',
  inputSchema: {
    confirm: z
      .literal(true)
      .describe('must be true: you accept that everything listed in the description is removed'),
  },
  outputSchema: { reset: z.boolean(), removed: z.string() },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(_args, connection) {
    await connection.client.emulator.reset();
    const removed =
      'every plugin, instance, delivery, conversation, message, file, repository and token created since the seed';
    // The project's plugin went with the rest: without it, every tool about it answers "not found".
    return result(
      `The emulator is back to its seed: removed ${removed}. This project's plugin is gone too: restart \`plugsmith dev\` (ask the person to) to deploy and install it again before triggering events or recording scenarios.`,
      { reset: true, removed },
      connection.credentials,
    );
  },
});
