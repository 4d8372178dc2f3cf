import { basename, relative, resolve } from 'node:path';
import type { CommandHandler } from '../types.js';
import { EXIT, UserError } from '../../errors.js';
import { checkName, checkTarget, completeAnswers, nameFromDir, packageRoot, scaffoldProject } from '../../project/scaffold.js';
import type { Language } from '../../project/languages.js';
import { TEMPLATES, type PluginType } from '../../project/plugin-types.js';
import { note, printResult } from '../../ui/output.js';
import { askAnswers } from './wizard.js';

interface InitOptions {
  name?: string;
  lang?: Language;
  type?: PluginType;
  events?: string[];
  scopes?: string[];
  port?: number;
  yes?: boolean;
  force?: boolean;
}

/** Asks (or takes from flags) what to make, writes the project, and says what to run next. */
const init: CommandHandler<InitOptions> = async (input) => {
  const { io, global } = input;
  const o = input.options;
  const dirArg = input.args[0] as string | undefined;
  // A folder that was named is checked before any question, so nobody answers five prompts for nothing.
  if (dirArg !== undefined) await checkTarget(resolve(dirArg), o.force);
  // The folder's name is the default only when valid as it is, never silently rewritten: the wizard offers the valid form.
  const folderName = dirArg === undefined ? undefined : basename(resolve(dirArg));
  if (o.yes && o.name === undefined && folderName !== undefined) {
    const problem = checkName(folderName);
    if (problem !== true) throw new UserError(`The folder's name "${folderName}" is not a valid plugin name: a name ${problem}. Pass --name ${nameFromDir(folderName)} (or another valid name)`, EXIT.USAGE);
  }

  const raw = await askAnswers(io, { name: o.name, lang: o.lang, type: o.type, events: o.events, scopes: o.scopes, port: o.port }, folderName === undefined ? 'my-plugin' : nameFromDir(folderName), Boolean(o.yes));
  const { answers, added } = completeAnswers(raw);
  if (added.length) note(io, global, `Added ${added.join(', ')}: the ${answers.type} template's code uses ${added.length === 1 ? 'it' : 'them'}.`);

  const dir = resolve(dirArg ?? answers.name);
  const result = await scaffoldProject({ ...answers, dir, force: o.force });
  // A path that climbs out of the current folder reads better in full.
  const near = relative(process.cwd(), dir) || '.';
  const shown = near.startsWith('..') ? dir : near;
  printResult(
    io,
    global,
    { dir, ...answers, plugsmithVersion: result.plugsmithVersion, plugsmithDependency: result.plugsmithDependency, files: result.files },
    () => `Created the ${answers.lang === 'python' ? 'Python ' : ''}${answers.type} plugin "${answers.name}" in ${shown} (${result.files.length} files).\n`,
  );
  if (result.vendored) note(io, global, `plugsmith ${result.plugsmithVersion} is not a release the npm registry serves, so the project installs it from ${result.vendored} (packed from ${packageRoot()}); commit that file.`);
  const next = answers.lang === 'python'
    ? [
        '  plugsmith dev                                  # emulator, deploy, python3 -m plugin (restarted on change), verify, install, live deliveries',
        `  plugsmith trigger ${TEMPLATES[answers.type].triggerEvent}   # in another terminal: a real event, answered by the plugin`,
        '  plugsmith emulator exec --deploy -- python3 -m unittest   # the end-to-end test, against an in-memory emulator',
      ]
    : [
        '  npm install',
        '  npx plugsmith dev                              # emulator, deploy, the plugin (restarted on change), verify, install, live deliveries',
        `  npx plugsmith trigger ${TEMPLATES[answers.type].triggerEvent}   # in another terminal: a real event, answered by the plugin`,
        '  npm test                                       # the end-to-end test, against an in-memory emulator',
      ];
  note(io, global, ['', 'Next:', ...(shown === '.' ? [] : [`  cd ${shown}`]), ...next, 'More in README.md.'].join('\n'));
};

export default init;
