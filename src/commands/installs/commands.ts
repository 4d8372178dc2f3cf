import type { InstanceEntityType } from '#contract';
import { INSTALL_TARGETS } from '#contract/installs';
import { defineCommand, type AnyCommandSpec } from '../types.js';
import {
  eventKindList,
  listOptions,
  orgOption,
  scopeList,
  targetOptions,
  yesOption,
} from '../list-options.js';

const EXAMPLE: Record<InstanceEntityType, { entityId: string; scopes: string; events: string }> = {
  REPOSITORY: {
    entityId: 'repo_docs',
    scopes: 'REPOSITORY_FILES_READ',
    events: 'REPOSITORY_FILE_ADDED',
  },
  AGENT: {
    entityId: 'agent_nova',
    scopes: 'AGENT_MESSAGE_WRITE',
    events: 'AGENT_MESSAGE_RECEIVED',
  },
  APP: { entityId: 'app_main', scopes: '', events: '' },
};

const run = () => import('./run.js');

/** `plugsmith <noun> add|list|remove` (`providers`, `handlers`, `apps`): installations of one plugin type on its kind of entity. */
export function installCommands(entityType: InstanceEntityType): AnyCommandSpec[] {
  const target = INSTALL_TARGETS[entityType];
  const noun = target.command;
  const ex = EXAMPLE[entityType];
  const arg = `<${target.noun}Id>`;
  const a = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);
  const scopes = ex.scopes ? ` --scopes ${ex.scopes}` : '';
  return [
    defineCommand({
      path: [noun, 'add'],
      summary: `Install ${a(target.pluginType)} plugin on ${a(target.noun)} (the plugin gets PLUGIN_INSTALLED with its token)`,
      examples: [
        `plugsmith ${noun} add ${ex.entityId} --plugin plg_123${scopes}`,
        `plugsmith ${noun} add ${ex.entityId} --plugin plg_123 --name main${ex.events ? ` --events ${ex.events}` : ''} --inputs ./inputs.json --dispatch-mode SYNC --json`,
      ],
      args: [arg],
      options: [
        {
          flags: '--plugin <pluginId>',
          description: `the ${target.pluginType} plugin to install (its webhook must be verified)`,
        },
        { flags: '--name <name>', description: 'instance name (default: the plugin’s name)' },
        {
          flags: '--events <kinds>',
          description: 'events to receive, comma-separated (default: all of the plugin’s events)',
          parse: eventKindList,
        },
        {
          flags: '--scopes <scopes>',
          description: 'scopes granted to the instance token, comma-separated (default: none)',
          parse: scopeList,
        },
        {
          flags: '--inputs <file>',
          description: 'JSON file of the inputs (checked against the plugin’s inputsSchema)',
        },
        {
          flags: '--dispatch-mode <mode>',
          description: 'SYNC waits for the webhook, ASYNC queues (default ASYNC)',
          choices: ['SYNC', 'ASYNC'],
        },
        ...(entityType === 'APP'
          ? [
              {
                ...orgOption,
                description:
                  "org of the app (default: the profile's; needed only for an app's first plugin)",
              },
            ]
          : []),
        ...targetOptions,
      ],
      load: () => run().then((m) => ({ default: m.runAdd(entityType) })),
    }),
    defineCommand({
      path: [noun, 'list'],
      summary: `List the ${target.what}s of ${a(target.noun)}`,
      examples: [
        `plugsmith ${noun} list ${ex.entityId}`,
        `plugsmith ${noun} list ${ex.entityId} --filter pluginId=plg_123 --json`,
      ],
      args: [arg],
      options: [...listOptions, ...targetOptions],
      load: () => run().then((m) => ({ default: m.runList(entityType) })),
    }),
    defineCommand({
      path: [noun, 'remove'],
      summary: `Uninstall ${a(target.what)} (OWNER only; the plugin gets PLUGIN_UNINSTALLED)`,
      examples: [`plugsmith ${noun} remove ${ex.entityId} pin_123 --yes`],
      args: [arg, '<pluginInstanceId>'],
      options: [yesOption, ...targetOptions],
      load: () => run().then((m) => ({ default: m.runRemove(entityType) })),
    }),
  ];
}
