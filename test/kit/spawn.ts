import { runCli } from './cli-process.js';
import { tempDir, type Cli } from './index.js';

// The spawned CLI: the built dist/ as a child process. Importing this module puts a test file in the
// process tier (test/kit/tiers.ts): `npm test` runs it, `npm run test:quick` does not.

/** The CLI as a child process pointed at what `env` says, with a fresh config dir (removed by the kit). */
export async function spawnedCli(env: Record<string, string> = {}): Promise<
  Cli & {
    run(
      args: string[],
      options?: { env?: Record<string, string>; input?: string; cwd?: string },
    ): ReturnType<typeof runCli>;
  }
> {
  const configDir = await tempDir('plugsmith-cfg-');
  const base = { PLUGSMITH_CONFIG_DIR: configDir, ...env };
  const run = (
    args: string[],
    options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
  ) => runCli(args, { env: { ...base, ...options.env }, input: options.input, cwd: options.cwd });
  return {
    configDir,
    env: base,
    run,
    json: async (args, options = {}) => {
      const result = await run([...args, '--json'], options);
      if (result.code !== 0)
        throw new Error(`plugsmith ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
  };
}
