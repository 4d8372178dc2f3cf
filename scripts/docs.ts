import { writeFileSync } from 'node:fs';
import { commandReference } from './command-reference.js';

// `npm run docs`: writes docs/commands.md from the command registry.
writeFileSync('docs/commands.md', commandReference());
process.stderr.write('wrote docs/commands.md\n');
