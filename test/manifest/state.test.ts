import { describe, expect, test } from 'vitest';
import { normalizeBaseUrl } from '../../src/config/url.js';
import {
  findTarget,
  recordTarget,
  targetKey,
  type ProjectState,
  type TargetState,
} from '../../src/manifest/state.js';

const entry = (
  pluginId: string,
  baseUrl: string,
  deployedAt: string,
  storeId?: string,
): TargetState => ({
  pluginId,
  baseUrl,
  orgId: 'org_dev',
  deployedAt,
  ...(storeId ? { storeId } : {}),
  applied: { plugin: {}, actions: {}, externalEvents: {} },
});

describe('project deploy state keys', () => {
  test('the remote platform is keyed by its normalized base URL, whatever the spelling or the profile', () => {
    for (const url of [
      'https://api.example.com',
      'HTTPS://API.example.com/',
      'https://api.example.com:443//',
    ]) {
      expect(normalizeBaseUrl(url)).toBe('https://api.example.com');
      expect(targetKey({ storeId: null, baseUrl: url })).toBe('url:https://api.example.com');
    }
    expect(normalizeBaseUrl('http://127.0.0.1:80/v2/')).toBe('http://127.0.0.1/v2');
    expect(targetKey({ storeId: 'st_abc', baseUrl: 'http://127.0.0.1:4010' })).toBe('store:st_abc');
    expect(targetKey({ storeId: 'st_abc', baseUrl: 'http://127.0.0.1:4699' })).toBe('store:st_abc');
  });

  test('entries of version 1 are adopted: by base URL for the platform, by the plugin existing in the store for an emulator', async () => {
    const state: ProjectState = {
      version: 2,
      targets: {
        default: entry('plg_remote', 'https://api.example.com/', '2026-01-01T00:00:00.000Z'),
        'http://127.0.0.1:4010': entry(
          'plg_old',
          'http://127.0.0.1:4010',
          '2026-01-01T00:00:00.000Z',
        ),
        local: entry('plg_new', 'http://127.0.0.1:4699', '2026-01-02T00:00:00.000Z'),
        'http://127.0.0.1:5000': entry(
          'plg_other_store',
          'http://127.0.0.1:5000',
          '2026-01-03T00:00:00.000Z',
        ),
      },
    };
    const remote = await findTarget(
      state,
      { storeId: null, baseUrl: 'https://API.example.com' },
      async () => false,
    );
    expect(remote).toMatchObject({
      key: 'url:https://api.example.com',
      adopted: ['default'],
      duplicates: [],
    });
    expect(remote.target?.pluginId).toBe('plg_remote');

    const inStore = new Set(['plg_old', 'plg_new']);
    const local = await findTarget(
      state,
      { storeId: 'st_x', baseUrl: 'http://127.0.0.1:4811' },
      async (id) => inStore.has(id),
    );
    expect(local.key).toBe('store:st_x');
    expect(local.target).toMatchObject({ pluginId: 'plg_new', storeId: 'st_x' });
    expect(local.adopted.sort()).toEqual(['http://127.0.0.1:4010', 'local']);
    expect(local.duplicates).toEqual(['plg_old']);

    recordTarget(
      state,
      local,
      entry('plg_new', 'http://127.0.0.1:4811', '2026-01-04T00:00:00.000Z', 'st_x'),
    );
    expect(Object.keys(state.targets).sort()).toEqual([
      'default',
      'http://127.0.0.1:5000',
      'store:st_x',
    ]);
    // Once keyed, the lookup is exact and asks nothing of the store.
    const again = await findTarget(
      state,
      { storeId: 'st_x', baseUrl: 'http://127.0.0.1:9999' },
      async () => {
        throw new Error('not asked');
      },
    );
    expect(again).toMatchObject({ key: 'store:st_x', adopted: [], duplicates: [] });
  });
});
