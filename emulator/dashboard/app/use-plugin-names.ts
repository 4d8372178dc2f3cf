import { isolated } from './format.js';
import { useEffect, useState } from 'react';
import type { Plugin } from '#contract';
import { call, currentWorkspace } from './api.js';

/** The workspace's plugins by id, read once per mount (every page): the names shown beside plugin ids. */
export function usePlugins(): Map<string, Plugin> {
  const [plugins, setPlugins] = useState(() => new Map<string, Plugin>());
  useEffect(() => {
    const controller = new AbortController();
    const orgId = currentWorkspace().orgId;
    if (!orgId) return;
    void (async () => {
      const found = new Map<string, Plugin>();
      let cursor = '';
      try {
        for (let page = 0; page < 50; page++) {
          const answer = await call<Plugin[]>(
            'api',
            'GET',
            `/orgs/${encodeURIComponent(orgId)}/plugins?@limit=100&@sortBy=name&@sortOrder=asc&@cursor=${encodeURIComponent(cursor)}`,
            undefined,
            controller.signal,
          );
          for (const p of answer.data) found.set(p.id, p);
          const pagination = answer.meta?.pagination as
            | { hasNext?: boolean; nextCursor?: string | null }
            | undefined;
          if (!pagination?.hasNext || !pagination.nextCursor) break;
          cursor = pagination.nextCursor;
        }
      } catch {
        // Names are a help: without them the ids stand alone.
      }
      if (!controller.signal.aborted) setPlugins(found);
    })();
    return () => controller.abort();
  }, []);
  return plugins;
}

/** "Weather (plg_123)", or the id alone when the plugin is not known. */
export function pluginLabel(plugins: Map<string, Plugin>, id: string): string {
  const name = plugins.get(id)?.name;
  return name ? `${isolated(name)} (${id})` : id;
}
