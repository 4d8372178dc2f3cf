import { PluginInstanceSchema } from '#contract';
import { querySpec } from '../common.js';

/** The query of instance lists. */
export const INSTANCE_QUERY = querySpec(
  PluginInstanceSchema,
  [
    'id',
    'name',
    'pluginId',
    'orgId',
    'entityId',
    'entityType',
    'agentId',
    'eventDispatchMode',
    'events',
    'scopes',
    'createdAt',
    'updatedAt',
  ],
  ['name'],
);
