import { beforeAll, describe, expect, test } from 'vitest';
import type { InstanceEntityType } from '#contract';
import {
  entityTypeOfNoun,
  entityTypeOfPluginType,
  INSTALL_TARGETS,
  installsPath,
  isInstallEntityType,
} from '#contract/installs';
import type { Emulator } from '../../emulator/index.js';
import type { InstanceCreate, PlatformClient } from '../../src/client/index.js';
import { installOn, installsOn } from '../../src/client/installs.js';
import { emulatorAndClient, servePlugin, type TestPlugin } from '../kit/plugin-server.js';

// Issue 42 item 3: one verb (`install`) and one mapping by entity type (INSTALL_TARGETS, src/shared/contract/installs.ts)
// for the three kinds of installation, on a real emulator with a real, verified plugin of each type. The old names (`add`,
// `attach`) still work.

const CASES: Record<InstanceEntityType, { entityId: string; plugin: TestPlugin }> = {
  REPOSITORY: {
    entityId: 'repo_docs',
    plugin: {
      name: 'docs reader',
      description: 'reads files',
      type: 'DATA_PROVIDER',
      events: ['REPOSITORY_FILE_ADDED'],
      scopes: ['REPOSITORY_FILES_READ'],
    },
  },
  AGENT: {
    entityId: 'agent_nova',
    plugin: {
      name: 'echo',
      description: 'answers',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
  },
  APP: {
    entityId: 'app_verb',
    plugin: { name: 'an app', description: 'an app', type: 'APP', events: [], scopes: [] },
  },
};

const KINDS = Object.keys(CASES) as InstanceEntityType[];

let emu: Emulator;
let client: PlatformClient;
const pluginIds = {} as Record<InstanceEntityType, string>;

beforeAll(async () => {
  ({ emu, client } = await emulatorAndClient());
  for (const kind of KINDS)
    pluginIds[kind] = await servePlugin(emu, client, CASES[kind].plugin, {});
});

function body(kind: InstanceEntityType, name: string): InstanceCreate {
  const { plugin } = CASES[kind];
  return { name, pluginId: pluginIds[kind], events: plugin.events, scopes: plugin.scopes };
}

describe('the mapping', () => {
  test('each plugin type goes on one kind of entity, and back', () => {
    expect(KINDS.map((k) => entityTypeOfPluginType(CASES[k].plugin.type))).toEqual(KINDS);
    expect(KINDS.map((k) => INSTALL_TARGETS[k].pluginType)).toEqual(
      KINDS.map((k) => CASES[k].plugin.type),
    );
    expect(entityTypeOfPluginType('SOMETHING_NEW')).toBeUndefined();
    expect(isInstallEntityType('SOMETHING_NEW')).toBe(false);
    expect(KINDS.filter(isInstallEntityType)).toEqual(KINDS);
    expect(KINDS.map((k) => entityTypeOfNoun(INSTALL_TARGETS[k].noun))).toEqual(KINDS);
  });

  test('the routes under /api, the words and the client resources', () => {
    expect(KINDS.map((k) => installsPath(k, 'x'))).toEqual([
      '/repositories/x/data-providers',
      '/agents/x/plugins',
      '/apps/x/plugins',
    ]);
    expect(KINDS.map((k) => INSTALL_TARGETS[k].noun)).toEqual(['repository', 'agent', 'app']);
    expect(KINDS.map((k) => INSTALL_TARGETS[k].command)).toEqual(['providers', 'handlers', 'apps']);
    expect(KINDS.map((k) => INSTALL_TARGETS[k].resource)).toEqual([
      'dataProviders',
      'agentPlugins',
      'appPlugins',
    ]);
  });
});

describe.each(KINDS)('on a %s', (kind) => {
  const { entityId } = CASES[kind];

  test('install, list and remove through the one verb', async () => {
    const instance = await installOn(client, kind, entityId, body(kind, `via install ${kind}`), {
      orgId: emu.orgId!,
    });
    expect(instance.entityId).toBe(entityId);
    expect(instance.entityType).toBe(kind);
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: pluginIds[kind] });

    const listed = await installsOn(client, kind).list(entityId);
    expect(listed.data.map((i) => i.id)).toContain(instance.id);

    await installsOn(client, kind).remove(entityId, instance.id);
    const after = await installsOn(client, kind).list(entityId);
    expect(after.data.map((i) => i.id)).not.toContain(instance.id);
  });
});
