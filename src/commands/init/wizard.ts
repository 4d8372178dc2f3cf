import { askChoice, askMany, askText } from '../../ui/dialogs.js';
import type { Io } from '../../ui/io.js';
import { PLUGIN_EVENTS, PLUGIN_SCOPES, PLUGIN_TYPES, TEMPLATES, type PluginType } from '../../project/plugin-types.js';
import { checkName, DEFAULT_PORT, type ProjectAnswers } from '../../project/scaffold.js';
import type { Language } from '../../project/languages.js';

/** Values given as flags; the rest is asked, or defaulted with --yes. */
export type GivenAnswers = Partial<ProjectAnswers>;

/** Completes the answers: a flag's value as it is, a missing one asked for (or defaulted with --yes); the language only with the type. */
export async function askAnswers(io: Io, given: GivenAnswers, defaultName: string, useDefaults: boolean): Promise<ProjectAnswers> {
  const name =
    given.name ??
    (useDefaults
      ? defaultName
      : await askText(io, { flag: '--name', message: 'Plugin name:', default: defaultName, validate: (v) => (checkName(v) === true ? true : `The name ${checkName(v)}`) }));
  const type: PluginType =
    given.type ??
    (useDefaults
      ? 'EVENT_HANDLER'
      : await askChoice<PluginType>(io, { flag: '--type', message: 'Plugin type:', choices: PLUGIN_TYPES.map((t) => ({ value: t, name: TEMPLATES[t].title })), default: 'EVENT_HANDLER' }));
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
      : await askMany(io, { flag: '--events', message: 'Events to receive:', choices: PLUGIN_EVENTS.map((e) => ({ value: e, checked: template.events.includes(e) })) }));
  const scopes =
    given.scopes ??
    (useDefaults
      ? template.scopes
      : await askMany(io, { flag: '--scopes', message: 'Scopes of its installation tokens:', choices: PLUGIN_SCOPES.map((s) => ({ value: s, checked: template.scopes.includes(s) })) }));
  const port =
    given.port ??
    (useDefaults
      ? DEFAULT_PORT
      : Number(
          await askText(io, {
            flag: '--port',
            message: 'Port of the webhook server:',
            default: String(DEFAULT_PORT),
            validate: (v) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 65535 ? true : 'A port is a whole number from 1 to 65535'),
          }),
        ));
  return { name, lang, type, events, scopes, port };
}
