import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';
import { CHECKED_BY_HANDLER } from '../src/shared/contract/index.js';

// The one place reaching into fastify's own compilers: test/emulator/schema-compilers.test.ts fails if a fastify upgrade changes them.

type Factories = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type RouteValidator = ((data: unknown, context?: unknown) => unknown) & {
  errors?: unknown;
  schemaEnv?: unknown;
};
type ValidatorPool = (
  externalSchemas: unknown,
  options: unknown,
) => (route: unknown) => RouteValidator;
type SerializerFactory = (
  externalSchemas: unknown,
  options: unknown,
) => (route: { schema: unknown }) => (data: unknown) => string;

/** fastify's own copy of a package it depends on (the compilers fastify itself would load). */
const fromFastify = (name: string): unknown =>
  createRequire(createRequire(import.meta.url).resolve('fastify'))(name);

/** The validator of a part its handler checks. */
const PASS: RouteValidator = Object.assign(() => true, { schemaEnv: true });

let validatorPool: ValidatorPool | undefined;
let serializerPool: SerializerFactory | undefined;

/** Serializers compiled so far per shared schemas and options, by content: each app gets new copies of the shared schemas. */
const serializerSets = new Map<string, WeakMap<object, (data: unknown) => string>>();

/** How many route schemas were compiled in this process (validators asked of ajv, serializers built): for tests. */
export const compiled = { validators: 0, serializers: 0 };

/** fastify's compilers, lazy (a route compiles at its first request: ~300 ms off a start) and shared, so a later emulator compiles nothing. */
export function lazyCompilers(): NonNullable<FastifyServerOptions['schemaController']> {
  validatorPool ??= (fromFastify('@fastify/ajv-compiler') as () => ValidatorPool)();
  serializerPool ??= (
    fromFastify('@fastify/fast-json-stringify-compiler') as {
      SerializerSelector: () => SerializerFactory;
    }
  ).SerializerSelector();
  const validators = validatorPool;
  const serializers = serializerPool;
  const buildValidator = (externalSchemas: unknown, options: unknown) => {
    const compile = validators(externalSchemas, options);
    return (route: unknown) => {
      // A query its handler checks: its schema is typed for the OpenAPI document (integers, comma lists), not the raw strings.
      const { schema, httpPart } = route as { schema?: Record<string, unknown>; httpPart?: string };
      if (httpPart === 'querystring' && schema?.[CHECKED_BY_HANDLER] === true) return PASS;
      let fn: RouteValidator | undefined;
      const lazy: RouteValidator = (data, context) => {
        if (!fn) {
          compiled.validators++;
          fn = compile(route);
        }
        const result = fn(data, context);
        lazy.errors = fn.errors;
        return result;
      };
      // fastify passes the request as parent data to ajv validators (so ajv may replace the root value).
      lazy.schemaEnv = true;
      return lazy;
    };
  };
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    const compile = serializers(externalSchemas, options);
    const key = `${JSON.stringify(externalSchemas) ?? ''}\n${JSON.stringify(options) ?? ''}`;
    const kept = serializerSets.get(key) ?? new WeakMap<object, (data: unknown) => string>();
    serializerSets.set(key, kept);
    return (route) => {
      let fn: ((data: unknown) => string) | undefined;
      return (data) => {
        if (!fn) {
          const schema = route.schema;
          fn = typeof schema === 'object' && schema !== null ? kept.get(schema) : undefined;
          if (!fn) {
            compiled.serializers++;
            fn = compile(route);
            if (typeof schema === 'object' && schema !== null) kept.set(schema, fn);
          }
        }
        return fn(data);
      };
    };
  };
  return {
    compilersFactory: {
      buildValidator: buildValidator as unknown as Factories['buildValidator'],
      buildSerializer: buildSerializer as unknown as Factories['buildSerializer'],
    },
  };
}
