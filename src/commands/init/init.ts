import { basename, relative, resolve } from 'node:path';
import type { RunCommand, OptionsOf } from '../types.js';
import { EXIT, UserError } from '../../errors.js';
import {
  checkName,
  checkTarget,
  completeAnswers,
  DEFAULT_PORT,
  nameFromDir,
  packageRoot,
  scaffoldProject,
  type ProjectAnswers,
} from '../../project/scaffold.js';
import type { Language } from '../../project/languages.js';
import { PLUGIN_TYPES, SCOPES, type PluginType } from '#contract';
import { PLUGIN_EVENTS, TEMPLATES } from '../../project/plugin-types.js';
import { askChoice, askMany, askText, refuseUnasked } from '../../ui/dialogs.js';
import type { Io } from '../../ui/io.js';
import { note, printResult } from '../../ui/output.js';
import type { initOptions } from './options.js';

/** Completes the answers: a flag's value as it is, a missing one asked for (or defaulted with --yes); the language only with the type. */
async function askAnswers(
  io: Io,
  given: Partial<ProjectAnswers>,
  defaultName: string,
  useDefaults: boolean,
): Promise<ProjectAnswers> {
  const name =
    given.name ??
    (useDefaults
      ? defaultName
      : await askText(io, {
          flag: '--name',
          message: 'Plugin name:',
          default: defaultName,
          validate: (v) => (checkName(v) === true ? true : `The name ${checkName(v)}`),
        }));
  const type: PluginType =
    given.type ??
    (useDefaults
      ? 'EVENT_HANDLER'
      : await askChoice<PluginType>(io, {
          flag: '--type',
          message: 'Plugin type:',
          choices: PLUGIN_TYPES.map((t) => ({ value: t, name: TEMPLATES[t].title })),
          default: 'EVENT_HANDLER',
        }));
  const lang: Language =
    given.lang ??
    // Asked with the type: a type given as a flag (scripts written before Python) means TypeScript.
    (useDefaults || given.type !== undefined
      ? 'typescript'
      : await askChoice<Language>(io, {
          flag: '--lang',
          message: 'Language:',
          choices: [
            { value: 'typescript', name: 'TypeScript (Node.js 20+)' },
            { value: 'python', name: 'Python (3.10+, standard library only)' },
          ],
          default: 'typescript',
        }));
  const template = TEMPLATES[type];
  const events =
    given.events ??
    (useDefaults
      ? template.events
      : await askMany(io, {
          flag: '--events',
          message: 'Events to receive:',
          choices: PLUGIN_EVENTS.map((e) => ({ value: e, checked: template.events.includes(e) })),
        }));
  const scopes =
    given.scopes ??
    (useDefaults
      ? template.scopes
      : await askMany(io, {
          flag: '--scopes',
          message: 'Scopes of its installation tokens:',
          choices: SCOPES.map((s) => ({ value: s, checked: template.scopes.includes(s) })),
        }));
  const port =
    given.port ??
    (useDefaults
      ? DEFAULT_PORT
      : Number(
          await askText(io, {
            flag: '--port',
            message: 'Port of the webhook server:',
            default: String(DEFAULT_PORT),
            validate: (v) =>
              /^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 65535
                ? true
                : 'A port is a whole number from 1 to 65535',
          }),
        ));
  return { name, lang, type, events, scopes, port };
}

/** The flags of the values init asks for, in the order it asks. */
const ASKED: Array<[keyof ProjectAnswers, string]> = [
  ['name', '--name'],
  ['type', '--type'],
  ['events', '--events'],
  ['scopes', '--scopes'],
  ['port', '--port'],
];

/** Asks (or takes from flags) what to make, writes the project, and says what to run next. */
const init: RunCommand<OptionsOf<typeof initOptions>> = async (input) => {
  const { io, global } = input;
  const o = input.options;
  const dirArg = input.args[0] as string | undefined;
  // A folder that was named is checked before any question, so nobody answers five prompts for nothing.
  if (dirArg !== undefined) await checkTarget(resolve(dirArg), o.force);
  // The folder's name is the default only when valid as it is, never silently rewritten: the wizard offers the valid form.
  const folderName = dirArg === undefined ? undefined : basename(resolve(dirArg));
  if (o.yes && o.name === undefined && folderName !== undefined) {
    const problem = checkName(folderName);
    if (problem !== true)
      throw new UserError(
        `the folder's name "${folderName}" is not a valid plugin name: a name ${problem}. Pass --name ${nameFromDir(folderName)} (or another valid name)`,
        EXIT.USAGE,
      );
  }

  const given = {
    name: o.name,
    lang: o.lang,
    type: o.type,
    events: o.events,
    scopes: o.scopes,
    port: o.port,
  };
  if (!o.yes)
    refuseUnasked(
      io,
      ASKED.filter(([key]) => given[key] === undefined).map(([, flag]) => flag),
      '--yes to take the defaults for what is not given',
    );

  const raw = await askAnswers(
    io,
    given,
    folderName === undefined ? 'my-plugin' : nameFromDir(folderName),
    Boolean(o.yes),
  );
  const { answers, added } = completeAnswers(raw);
  if (added.length)
    note(
      io,
      global,
      `Added ${added.join(', ')}: the ${answers.type} template's code uses ${added.length === 1 ? 'it' : 'them'}.`,
    );

  const dir = resolve(dirArg ?? answers.name);
  const result = await scaffoldProject({ ...answers, dir, force: o.force });
  // A path that climbs out of the current folder reads better in full.
  const near = relative(process.cwd(), dir) || '.';
  const shown = near.startsWith('..') ? dir : near;
  printResult(
    io,
    global,
    {
      dir,
      ...answers,
      plugsmithVersion: result.plugsmithVersion,
      plugsmithDependency: result.plugsmithDependency,
      files: result.files,
    },
    () =>
      `Created the ${answers.lang === 'python' ? 'Python ' : ''}${answers.type} plugin "${answers.name}" in ${shown} (${result.files.length} files).\n`,
  );
  if (result.vendored)
    note(
      io,
      global,
      answers.lang === 'python'
        ? `plugsmith ${result.plugsmithVersion} is not a release the npm registry serves, so it is packed into ${result.vendored} (from ${packageRoot()}): commit that file; \`npm install --global ./${result.vendored}\` installs it on a clone (README.md).`
        : `plugsmith ${result.plugsmithVersion} is not a release the npm registry serves, so the project installs it from ${result.vendored} (packed from ${packageRoot()}); commit that file.`,
    );
  const trigger = `trigger ${TEMPLATES[answers.type].triggerEvent}`;
  const next = commandLines(
    answers.lang === 'python'
      ? [
          [
            'plugsmith dev',
            'emulator, deploy, python3 -m plugin (restarted on change), verify, install, live deliveries',
          ],
          [`plugsmith ${trigger}`, 'in another terminal: a real event, answered by the plugin'],
          [
            'plugsmith emulator exec --deploy -- python3 -m unittest',
            'the end-to-end test, against an in-memory emulator',
          ],
        ]
      : [
          ['npm install', null],
          [
            'npx plugsmith dev',
            'emulator, deploy, the plugin (restarted on change), verify, install, live deliveries',
          ],
          [`npx plugsmith ${trigger}`, 'in another terminal: a real event, answered by the plugin'],
          ['npm test', 'the end-to-end test, against an in-memory emulator'],
        ],
  );
  note(
    io,
    global,
    ['', 'Next:', ...(shown === '.' ? [] : [`  cd ${shown}`]), ...next, 'More in README.md.'].join(
      '\n',
    ),
  );
};

export default init;

/** Commands to run next, indented, each comment (`# …`) in one column after the longest command that has one. */
function commandLines(rows: Array<[command: string, comment: string | null]>): string[] {
  const width = Math.max(
    ...rows.filter(([, comment]) => comment).map(([command]) => command.length),
  );
  return rows.map(([command, comment]) =>
    comment ? `  ${command.padEnd(width)}   # ${comment}` : `  ${command}`,
  );
}
