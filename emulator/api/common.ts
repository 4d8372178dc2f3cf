import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TObject } from '@sinclair/typebox';
import { Params, type QueryFieldType } from '#contract';
import type { StoreDeps } from '../context.js';
import type { OrgRecord, PluginRecord } from '../model.js';
import { badRequest, detail, found, notFound } from '../errors.js';
import { hasRole, requireUser } from '../auth/guards.js';
import { checkJsonSchema } from '../validation/json-schema.js';
import { ok } from '../http.js';
import { parseQuery, runList, type QuerySpec } from './list-query.js';
import type { QueryScope } from '../store/query.js';
import type { BaseRecord, Collection } from '../store/store.js';

/** Route options: a route module receives the services its feature's deps type declares. */
export interface RouteOptions<Deps = StoreDeps> {
  services: Deps;
}

/** Path parameters made of ids: the contract's builder, typed for the route's handler. */
export const params = Params;

/** The route module's app with the TypeBox type provider: handlers get typed requests from their schemas. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

/** A list's query: the `fields` of a contract resource that filter and sort, typed as the resource types them, and those `@search` reads. */
export function querySpec<S extends TObject>(
  resource: S,
  fields: Array<keyof S['properties'] & string>,
  search: Array<keyof S['properties'] & string>,
): QuerySpec {
  const enums = fields.flatMap((field) => {
    const values = enumValues(resource, field);
    return values ? [[field, values] as const] : [];
  });
  return {
    fields: Object.fromEntries(fields.map((field) => [field, queryType(resource, field)])),
    search,
    enums: Object.fromEntries(enums),
  };
}

/** The values of a string field that is an enum (null left out: a filter value is a string), else undefined. */
function enumValues(resource: TObject, field: string): string[] | undefined {
  const values: unknown = resource.properties[field].enum;
  if (!Array.isArray(values)) return undefined;
  return values.filter((value): value is string => typeof value === 'string');
}

function queryType(resource: TObject, field: string): QueryFieldType {
  // A nullable field's type is [type, 'null']: it filters as its type.
  const type: unknown = [resource.properties[field].type].flat().find((t) => t !== 'null');
  if (type === 'integer') return 'number';
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'array') return type;
  throw new Error(`${String(resource.title)}.${field} is not a field a list can filter on`);
}

/** A list route's answer: the shared query system over `collection` (within `scope`), each record presented. */
export function listed<T extends BaseRecord, V = T>(
  collection: Collection<T>,
  raw: Record<string, string | string[] | undefined>,
  spec: QuerySpec,
  scope: QueryScope<T> = {},
  present?: (record: T) => V,
) {
  const result = runList(collection, parseQuery(raw, spec), spec, scope);
  return ok(present ? result.data.map(present) : result.data, { pagination: result.pagination });
}

/** The org, or a 404. */
export function findOrg(services: StoreDeps, orgId: string): OrgRecord {
  return found(services.db.orgs.get(orgId), 'organization', orgId);
}

/** The plugin, if the caller may see it (public, or a member of its org); anything else is a 404. */
export function findVisiblePlugin(
  services: StoreDeps,
  request: FastifyRequest,
  pluginId: string,
): PluginRecord {
  // Without a token a 401 whatever the plugin; an installation access token a 403 (instances act only through scopes).
  requireUser(request);
  const plugin = services.db.plugins.get(pluginId);
  if (
    !plugin ||
    (!plugin.isPublic && !hasRole(services.db, request.principal, plugin.orgId, 'VIEWER'))
  ) {
    throw notFound('plugin', pluginId);
  }
  return plugin;
}

/** Refuses `orgId` in the body of the org-path variants: the org comes from the path. */
export function refuseOrgIdInBody(request: FastifyRequest): void {
  // Runs before validation: the body is still whatever the client sent.
  const body: unknown = request.body;
  if (typeof body === 'object' && body !== null && 'orgId' in body) {
    throw badRequest('orgId must not be in the body: the org comes from the path', [
      detail(
        ['orgId'],
        'unrecognized_keys',
        'absent',
        body.orgId,
        'orgId must not be supplied in the body of /api/orgs/:orgId/… requests',
      ),
    ]);
  }
}

/** Meta-validates the JSON Schemas among `fields` of a body; a 400 with details if any is invalid. */
export function requireValidSchemas(body: Record<string, unknown>, fields: string[]): void {
  const problems = fields.flatMap((f) => (body[f] === undefined ? [] : checkSafely(body[f], [f])));
  if (problems.length > 0)
    throw badRequest(
      `Invalid JSON Schema in ${[...new Set(problems.map((p) => p.path[0]))].join(', ')}`,
      problems,
    );
}

/** checkJsonSchema, with anything it throws (ajv cannot even start on the schema) as a problem, never a 500. */
function checkSafely(schema: unknown, path: string[]) {
  try {
    return checkJsonSchema(schema, path);
  } catch (error) {
    return [
      detail(
        path,
        'invalid_schema',
        'a JSON Schema ajv can check',
        schema,
        `${path.join('.')} cannot be checked: ${(error as Error).message}`,
      ),
    ];
  }
}
