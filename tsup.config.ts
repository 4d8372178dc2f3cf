import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// Three builds: the libraries plugin authors import get type declarations; the CLI is split
// into chunks so that each command loads only what it uses (ink and react only for chat); the
// dashboard is one browser bundle (react and react-dom inside it) that the emulator serves.
export default defineConfig([
  {
    entry: {
      'emulator/index': 'src/emulator-entry.ts',
      'client/index': 'src/client/index.ts',
      'webhooks/index': 'src/shared/webhooks/index.ts',
      // The emulator's services, for this repository's benchmarks (bench/servers/*.js): built beside the emulator
      // so that both share one registry, but neither in the package's exports nor given type declarations.
      'emulator/internals': 'emulator/internals.ts',
    },
    format: 'esm',
    target: 'node20',
    platform: 'node',
    dts: {
      entry: {
        'emulator/index': 'src/emulator-entry.ts',
        'client/index': 'src/client/index.ts',
        'webhooks/index': 'src/shared/webhooks/index.ts',
      },
    },
    // TypeBox is some 200 small ES modules, which Node's loader opens at once when the admin app is
    // first built; bundled, they are one file. Under a small descriptor limit with the connection cap's
    // sockets held, the separate files ran out of descriptors (test/security/socket-bounds.test.ts).
    // Its kinds are registered symbols, so schemas stay compatible with another copy.
    noExternal: ['@sinclair/typebox'],
    sourcemap: true,
    splitting: true,
    outDir: 'dist',
  },
  {
    entry: { cli: 'src/cli.ts' },
    define: { __PLUGSMITH_VERSION__: JSON.stringify(version) },
    format: 'esm',
    target: 'node20',
    platform: 'node',
    // TypeBox bundled here too, for the same reason as above and for the commands' start. The MCP SDK
    // and zod (with the SDK's zod-to-json-schema) too: `plugsmith mcp` read some 140 of their modules
    // one by one before it could answer `initialize` (budget: 400 ms and 5x `node -e 0`, bench/cli.js).
    // ajv and ajv-formats too: the SDK's server imports its ajv validator at load, some 100 CommonJS
    // files (~35 ms of the 400). The CLI's own ajv instances (the manifest's schemas, the emulator's
    // validators) come from the bundle as well; fastify's ajv compiler keeps the installed ajv, and
    // what the emulator hands it (format functions, a keyword's name) is plain data, not ajv's classes.
    // TypeBox, the SDK, zod and ajv are MIT, zod-to-json-schema ISC: none carries a licence comment to
    // keep, and all still install with plugsmith, LICENSE files included (they stay in `dependencies`;
    // the tests use the SDK's client).
    noExternal: [
      '@sinclair/typebox',
      '@modelcontextprotocol/sdk',
      'zod',
      'zod-to-json-schema',
      'ajv',
      'ajv-formats',
    ],
    sourcemap: true,
    splitting: true,
    outDir: 'dist',
  },
  {
    entry: { app: 'emulator/dashboard/app/main.tsx' },
    tsconfig: 'emulator/dashboard/app/tsconfig.json',
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    // Everything is bundled: the dashboard works offline and fetches nothing from a CDN.
    noExternal: [/.*/],
    minify: true,
    splitting: false,
    sourcemap: false,
    // index.html beside the bundle.
    publicDir: 'emulator/dashboard/public',
    env: { NODE_ENV: 'production' },
    outDir: 'dist/dashboard',
  },
]);
