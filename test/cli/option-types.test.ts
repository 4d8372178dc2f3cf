import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  defineCommand,
  integerOption,
  type RunCommand,
  type OptionsOf,
} from '../../src/commands/types.js';

// Type-level checks: `npm run typecheck` (tsc over test/) fails when the inference drifts; the
// runtime assertions only make the file a test.
const declared = [
  { flags: '--parent-type <type>', description: 'd', choices: ['ORG', 'AGENT'] as const },
  { flags: '--limit <n>', description: 'd', parse: integerOption('--limit') },
  { flags: '--port <port>', description: 'd', default: 4010, parse: integerOption('--port') },
  { flags: '-y, --yes', description: 'd' },
  { flags: '--no-color', description: 'd' },
  { flags: '--attachment [file]', description: 'd' },
  { flags: '--ids <ids...>', description: 'd' },
] as const;

describe('command options typed from their declarations', () => {
  it('infers one camelCase key per option, typed from flags, choices, parse and default', () => {
    expectTypeOf<OptionsOf<typeof declared>>().toEqualTypeOf<{
      parentType: 'ORG' | 'AGENT' | undefined;
      limit: number | undefined;
      port: number;
      yes: boolean | undefined;
      color: boolean;
      attachment: string | true | undefined;
      ids: string[] | undefined;
    }>();
    expect(declared).toHaveLength(7);
  });

  it('refuses a run function that reads an option the command does not declare, or with another type', () => {
    const reads = (async () => undefined) as RunCommand<{ limit?: number; manifest: string }>;
    const wrongType = (async () => undefined) as RunCommand<{ limit?: string }>;
    const fits = (async () => undefined) as RunCommand<{ limit?: number; yes?: boolean }>;
    const base = { path: ['x'], summary: 's', examples: ['e'], options: declared };
    // @ts-expect-error --manifest is not declared
    defineCommand({ ...base, load: async () => ({ default: reads }) });
    // @ts-expect-error --limit parses to a number
    defineCommand({ ...base, load: async () => ({ default: wrongType }) });
    expect(defineCommand({ ...base, load: async () => ({ default: fits }) }).path).toEqual(['x']);
  });
});
