import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * commander requires node:child_process when it loads, for executable subcommands, which plugsmith
 * has none of; loading it (with net and dgram) is a few ms of every start, `--help` included. In the
 * bundle commander gets a stand-in that requires the real module on first use.
 */
const commanderChildProcessOnUse: EsbuildPlugin = {
  name: 'commander-child-process-on-use',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, ({ importer }) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(importer)
        ? { path: 'child_process', namespace: 'commander-child-process' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'commander-child-process' }, () => ({
      contents:
        "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

// Three builds: the libraries plugin authors import get type declarations; the CLI is split
// into chunks so that each command loads only what it uses (ink and react only for chat); the
// dashboard is one browser bundle (react and react-dom inside it) that the emulator serves.
export default defineConfig([
  {
    entry: {
      'emulator/index': 'src/emulator-entry.ts',
      'client/index': 'src/client/index.ts',
      'webhooks/index': 'src/shared/webhooks/index.ts',
    },
    format: 'esm',
    target: 'node20',
    platform: 'node',
    dts: true,
    // TypeBox is some 200 small ES modules: bundled, the emulator's start reads one file instead
    // (the contract's schemas are built at import). Its kinds are registered symbols, so schemas
    // stay compatible with another copy (the CLI's, @fastify/type-provider-typebox's).
    noExternal: ['@sinclair/typebox'],
    sourcemap: true,
    splitting: true,
    outDir: 'dist',
  },
  {
    entry: { cli: 'src/cli.ts' },
    define: { __PLUGSMITH_VERSION__: JSON.stringify(version) },
    // Bundled rather than resolved through node_modules at every start: the CLI's cold start counts.
    noExternal: ['commander'],
    esbuildPlugins: [commanderChildProcessOnUse],
    // Else tsup's own plugin takes every `node:` import before the one above can see it.
    removeNodeProtocol: false,
    // commander is CommonJS and requires node built-ins; give the ESM bundle a real `require`.
    banner: {
      js: "import { createRequire as __plugsmithCreateRequire } from 'node:module'; const require = __plugsmithCreateRequire(import.meta.url);",
    },
    format: 'esm',
    target: 'node20',
    platform: 'node',
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
