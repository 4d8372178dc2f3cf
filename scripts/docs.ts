import { readFileSync, writeFileSync } from 'node:fs';
import { commandReference } from './command-reference.js';
import { scenarioSchemaText, withFormatReference } from './scenario-reference.js';

// `npm run docs`: writes docs/commands.md from the command registry, and scenario.schema.json and
// the format reference of docs/scenarios.md from the scenario schema.
writeFileSync('docs/commands.md', commandReference());
process.stderr.write('wrote docs/commands.md\n');
writeFileSync('scenario.schema.json', scenarioSchemaText());
process.stderr.write('wrote scenario.schema.json\n');
const page = readFileSync('docs/scenarios.md', 'utf8');
writeFileSync('docs/scenarios.md', withFormatReference(page));
process.stderr.write('wrote docs/scenarios.md (format reference)\n');
