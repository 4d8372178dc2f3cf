import { z } from 'zod';
import { result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const setFaultProfile = defineTool({
  name: 'set_fault_profile',
  title: 'Set the fault profile',
  description:
    'Makes the emulator misbehave on purpose so the plugin can prove it copes: a comma-separated profile of duplicate=P, delay=MIN-MAX, reorder=P, drop=P, timeout-after-answer=P (P a probability like 0.2 or 20%), or "off". A seed makes the faults repeatable; without one each call draws a new seed, so calling it twice does not give the same faults. Returns the profile in force.',
  inputSchema: {
    profile: z.string().describe('e.g. "duplicate=0.2,drop=0.1", or "off"'),
    seed: z.string().optional().describe('default: a new random seed'),
  },
  outputSchema: { faults: anyObject },
  // Not idempotent: without a seed each call draws new faults.
  annotations: WRITES,
  async run(args, connection) {
    const faults = await connection.client.emulator.faults.set(args.profile, args.seed);
    const summary = faults.on
      ? `Fault injection on: ${faults.profile} (seed ${faults.seed}).`
      : 'Fault injection off.';
    return result(summary, { faults: faults as Record<string, unknown> }, connection.credentials);
  },
});
