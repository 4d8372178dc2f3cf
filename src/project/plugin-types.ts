import { EVENT_TYPES } from '../shared/webhooks/events.js';
import type { PluginType } from '#contract';

/** Events a plugin may list; WEBHOOK_CHALLENGE is sent to every plugin and never listed. */
export const PLUGIN_EVENTS = EVENT_TYPES.filter((e) => e !== 'WEBHOOK_CHALLENGE');

/** What `init` needs to know of a template beyond its files. */
interface TemplateInfo {
  /** Shown in the wizard's type list. */
  title: string;
  /** The manifest's and package's description. */
  description: string;
  /** Checked by default in the wizard, and used with --yes. */
  events: string[];
  scopes: string[];
  /** What the template's code handles: always added, or its own test could not pass. */
  requiredEvents: string[];
  requiredScopes: string[];
  /** README bullets on what src/plugin.ts does. */
  behaviour: string;
  /** README lines on how to install the plugin on the local emulator. */
  installHint: string;
  /** The manifest's installs: what `plugsmith dev` installs on the emulator's default workspace. */
  installs: Array<Record<string, string>>;
  /** The event `plugsmith trigger` sends in the README's walkthrough. */
  triggerEvent: string;
}

/** The templates, by plugin type: `init` has one (`templates/<type>/`) for every plugin type of the contract. */
export const TEMPLATES: Record<PluginType, TemplateInfo> = {
  EVENT_HANDLER: {
    title: "EVENT_HANDLER: answers users in an agent's conversations",
    description: "Answers messages sent to an agent's characters",
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    requiredEvents: ['AGENT_MESSAGE_RECEIVED'],
    requiredScopes: ['AGENT_MESSAGE_WRITE'],
    behaviour: [
      "  - on `AGENT_MESSAGE_RECEIVED` it writes the character's answer into the conversation with the",
      '    installation token (scope `AGENT_MESSAGE_WRITE`); `src/reply.ts` decides what to say.',
    ].join('\n'),
    installHint: [
      '`npx plugsmith handlers add agent_nova --plugin <pluginId> --scopes AGENT_MESSAGE_WRITE`',
      "(`agent_nova` is the agent of the emulator's default workspace), then",
      "`npx plugsmith trigger AGENT_MESSAGE_RECEIVED` prints the plugin's reply, or talk to the",
      "agent's character with `npx plugsmith chat char_nova`.",
    ].join('\n'),
    installs: [{ name: 'local agent', agent: 'agent_nova' }],
    triggerEvent: 'AGENT_MESSAGE_RECEIVED',
  },
  APP: {
    title: 'APP: installed on apps, keeps each installation and its token',
    description: 'Records the apps it is installed on',
    events: ['PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED'],
    scopes: [],
    requiredEvents: [],
    requiredScopes: [],
    behaviour: [
      '  - on `PLUGIN_INSTALLED` and `PLUGIN_UNINSTALLED` it keeps or forgets the installation and',
      '    records the change in `$DATA_DIR/history.json` (`src/history.ts`).',
    ].join('\n'),
    installHint: [
      '`npx plugsmith apps add app_local --plugin <pluginId>` (the first install binds the app to',
      "your org: `--org` if it is not the profile's); `npx plugsmith apps remove app_local <pluginInstanceId>`",
      'uninstalls it.',
    ].join('\n'),
    installs: [{ name: 'local app', app: 'app_local' }],
    triggerEvent: 'PLUGIN_INSTALLED',
  },
  DATA_PROVIDER: {
    title: 'DATA_PROVIDER: reads the files added to a repository',
    description: 'Reads the files added to a repository',
    events: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    scopes: ['REPOSITORY_FILES_READ'],
    requiredEvents: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    requiredScopes: ['REPOSITORY_FILES_READ'],
    behaviour: [
      "  - on `REPOSITORY_FILE_ADDED` it lists the repository's files and reads the new one through its",
      '    access URL, with the installation token (scope `REPOSITORY_FILES_READ`); on',
      '    `REPOSITORY_FILE_REMOVED` it forgets the file. Replace the `documents` map with your index.',
    ].join('\n'),
    installHint: [
      '`npx plugsmith providers add repo_docs --plugin <pluginId> --scopes REPOSITORY_FILES_READ`,',
      'then add a file to the repository: `npx plugsmith files upload ./notes.txt --parent-type ORG',
      '--parent-id org_dev` and',
      '`npx plugsmith repos files add repo_docs <fileId>`.',
    ].join('\n'),
    installs: [{ name: 'local docs', repository: 'repo_docs' }],
    triggerEvent: 'REPOSITORY_FILE_ADDED',
  },
};
