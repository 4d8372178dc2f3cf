import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from 'plugsmith/emulator';
import { startHarness, type Harness } from './harness.js';

// The project's scenarios (scenarios/*.json), which `plugsmith scenario run` plays against
// `plugsmith dev`, played here against an in-memory emulator, with the manifest's installs made
// first as `plugsmith dev` makes them. A failure names the step, what was expected and what came.

const folder = new URL('../scenarios/', import.meta.url);
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort();

interface ManifestInstall {
  name: string;
  agent?: string;
  repository?: string;
  app?: string;
}

describe('scenarios', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    const manifest = JSON.parse(
      await readFile(new URL('../plugsmith.json', import.meta.url), 'utf8'),
    ) as { installs?: ManifestInstall[] };
    const { events, scopes } = h.manifest.plugin;
    for (const install of manifest.installs ?? []) {
      const body = { name: install.name, pluginId: h.pluginId, events, scopes };
      if (install.agent) await h.client.agentPlugins.install(install.agent, body);
      if (install.repository) await h.client.dataProviders.install(install.repository, body);
      if (install.app)
        await h.client.appPlugins.install(install.app, { ...body, orgId: h.emu.orgId! });
      await h.emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: h.pluginId });
    }
  });

  afterAll(async () => {
    await h?.close();
  });

  for (const file of files) {
    it(file, async () => {
      const result = await runScenario(fileURLToPath(new URL(file, folder)), {
        emulator: h.emu,
        pluginId: h.pluginId,
      });
      const failed = result.steps.filter((step) => !step.ok && !step.skipped);
      expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    });
  }
});
