import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from 'plugsmith/emulator';
import { FAULTS, startHarness, type Harness } from './harness.js';

// Apps are named by their id; the first install binds the app to an org.
const APP = 'app_demo';

/** The plugin's tests, against an emulator started with `options`. */
function pluginTests(title: string, options: EmulatorOptions) {
  describe(title, () => {
    let h: Harness;
    let instanceId = '';

    beforeAll(async () => {
      h = await startHarness(options);
    });

    afterAll(async () => {
      await h?.close();
    });

    it('records an install and keeps its token in an owner-only file', async () => {
      const { plugin: manifest } = h.manifest;
      const instance = await h.client.appPlugins.install(APP, {
        name: 'demo app',
        pluginId: h.pluginId,
        events: manifest.events,
        scopes: manifest.scopes,
        orgId: h.emu.orgId!,
      });
      instanceId = instance.id;
      await h.emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: h.pluginId });

      expect(await h.plugin.tokens.get(instanceId)).toMatchObject({
        instanceId,
        entityType: 'APP',
        entityId: APP,
      });
      expect((await stat(h.plugin.tokens.path)).mode & 0o777).toBe(0o600);
      expect(await h.plugin.history.list()).toEqual([
        expect.objectContaining({ change: 'installed', instanceId, appId: APP }),
      ]);
    });

    it('records an uninstall and forgets the token', async () => {
      await h.client.appPlugins.remove(APP, instanceId);
      await h.emu.waitForDelivery({ type: 'PLUGIN_UNINSTALLED', pluginId: h.pluginId });

      expect(await h.plugin.tokens.get(instanceId)).toBeUndefined();
      expect((await h.plugin.history.list()).map((e) => e.change)).toEqual([
        'installed',
        'uninstalled',
      ]);
    });
  });
}

pluginTests('{{name}}', {});
// The same tests under the faults the platform produces (duplicates, delays, reordering, retries).
pluginTests('{{name}} under faults', FAULTS);
