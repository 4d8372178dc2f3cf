import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';
import { CHECKED_BY_HANDLER } from '../src/contract/index.js';

// The one place that reaches into fastify's schema compilers (its own copies of @fastify/ajv-compiler
// and @fastify/fast-json-stringify-compiler): test/emulator/schema-compilers.test.ts fails when a
// fastify upgrade changes what is used here.

type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator'] & {};
type RouteValidator = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/** fastify's own copy of a package it depends on (the compilers fastify itself would load). */
const fromFastify = (name: string): unknown => createRequire(createRequire(import.meta.url).resolve('fastify'))(name);

/** The validator of a part its handler checks. */
const PASS: RouteValidator = Object.assign(() => true, { schemaEnv: true });

let validatorPool: ((externalSchemas: unknown, options: unknown) => (route: unknown) => RouteValidator) | undefined;

/**
 * fastify's own validator compiler (@fastify/ajv-compiler, the copy fastify itself loads), made
 * lazy: a route's schemas are compiled on the route's first request instead of all of them at
 * start, which took about 300 ms. Validation is unchanged: same compiler, same ajv options.
 * One compiler pool serves every app of the process: it keeps one ajv per set of shared schemas
 * and options, and ajv keeps what it compiled per schema object, so an emulator started after the
 * first (a test suite starts one per file) neither builds an ajv (its meta-schema compile alone
 * took ~80 ms) nor compiles a route schema again.
 */
export function lazyValidatorCompilers(): { compilersFactory: { buildValidator: ValidatorFactory } } {
  validatorPool ??= (fromFastify('@fastify/ajv-compiler') as () => typeof validatorPool)();
  const pool = validatorPool!;
  const buildValidator = ((externalSchemas: unknown, options: unknown) => {
    const compile = pool(externalSchemas, options);
    return (route: unknown) => {
      // A query its handler reads and checks (the query system's parser): its schema, typed as the
      // OpenAPI document gives it (integers, comma lists), is not the raw query's strings.
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
  }) as unknown as ValidatorFactory;
  return { compilersFactory: { buildValidator } };
}

type SerializerFactory = (externalSchemas: unknown, options: unknown) => (route: { schema: unknown }) => (data: unknown) => string;

/**
 * fastify's own serializer compiler (fast-json-stringify, the copy fastify loads), made lazy like
 * the validators: a response schema is compiled on its first use, not at start. Responses are still
 * written from their schema, so a field the schema does not name never leaves the server.
 */
export function lazyCompilers(): NonNullable<FastifyServerOptions['schemaController']> {
  serializerPool ??= (fromFastify('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory }).SerializerSelector();
  const pool = serializerPool;
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    // What was compiled for a response schema (a module-level object) under the same shared schemas
    // and options serves every later app of the process. The selector itself caches nothing (it
    // returns a new compile function per call), so the serializers are kept here.
    const compile = pool(externalSchemas, options);
    const known = serializersFor(externalSchemas, options);
    return (route) => {
      let fn: ((data: unknown) => string) | undefined;
      return (data) => {
        if (!fn) {
          const schema = route.schema;
          fn = typeof schema === 'object' && schema !== null ? known.get(schema) : undefined;
          if (!fn) {
            compiled.serializers++;
            fn = compile(route);
            if (typeof schema === 'object' && schema !== null) known.set(schema, fn);
          }
        }
        return fn(data);
      };
    };
  };
  return { compilersFactory: { ...lazyValidatorCompilers().compilersFactory, buildSerializer: buildSerializer as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer'] } };
}
let serializerPool: SerializerFactory | undefined;

/**
 * Serializers compiled so far, per set of shared schemas and options. By content: fastify copies
 * every shared schema into each app it is added to, so each start's copies are new objects.
 */
const serializerSets = new Map<string, WeakMap<object, (data: unknown) => string>>();
function serializersFor(externalSchemas: unknown, options: unknown): WeakMap<object, (data: unknown) => string> {
  const key = `${JSON.stringify(externalSchemas) ?? ''}\n${JSON.stringify(options) ?? ''}`;
  let known = serializerSets.get(key);
  if (!known) serializerSets.set(key, (known = new WeakMap()));
  return known;
}

/** How many route schemas were compiled in this process (validators asked of ajv, serializers built): for tests. */
export const compiled = { validators: 0, serializers: 0 };
