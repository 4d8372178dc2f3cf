#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// An unbuilt checkout has no dist/: name the fix in one line instead of a module-not-found stack.
const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) await import(cli.href);
else {
  process.stderr.write(
    `plugsmith is not built: run \`npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))}\n`,
  );
  process.exitCode = 1;
}
