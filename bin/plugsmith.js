#!/usr/bin/env node
import { createRequire } from 'node:module';

// Built-ins through require: an ESM import of one loads every lazy part of it (fs's streams).
const require = createRequire(import.meta.url);
const { existsSync } = require('node:fs');
const { fileURLToPath } = require('node:url');

// An unbuilt checkout has no dist/: name the fix in one line instead of a module-not-found stack.
const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) await import(cli.href);
else {
  process.stderr.write(
    `plugsmith is not built: run \`npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))}\n`,
  );
  process.exitCode = 1;
}
