import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { AnySchema } from 'ajv';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { CHECKED_BY_HANDLER } from '#contract';

// fastify's own compilers (the packages its docs name for `schemaController.compilersFactory`), made lazy and installed through
// `setValidatorCompiler` and `setSerializerCompiler`, whose types say what fastify calls them with (compilersFactory's are the
// compiler packages' types, which declare a schema where fastify passes a route definition).

type ValidatorPool = ReturnType<typeof AjvCompiler>;
type SerializerPool = ReturnType<typeof SerializerSelector>;
type AjvOptions = Parameters<ValidatorPool>[1];
type Serializer = (data: unknown) => string;

/** What fastify runs to validate one part of a request, with the errors of its last run. */
type RouteValidator = ReturnType<FastifySchemaCompiler<unknown>>;

/** The validator of a part its handler checks. */
const PASS: RouteValidator = () => true;

let validatorPool: ValidatorPool | undefined;
let serializerPool: SerializerPool | undefined;

/** How many route schemas were compiled in this process (validators asked of ajv, serializers built): for tests. */
export const compiled = { validators: 0, serializers: 0 };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a value can be handed to ajv as a schema (an object or a boolean; ajv checks the rest when it compiles it). */
function isSchema(value: unknown): value is AnySchema {
  return typeof value === 'boolean' || isObject(value);
}

/** The schemas added to `app` (fastify keeps them untyped), as the compiler pools take them. */
function externalSchemas(app: FastifyInstance): Record<string, AnySchema> {
  const schemas: Record<string, AnySchema> = {};
  for (const [id, schema] of Object.entries(app.getSchemas()))
    if (isSchema(schema)) schemas[id] = schema;
  return schemas;
}

/**
 * Has `app` compile a route's schemas at its first request, with `ajv` (the options fastify's `ajv` server option would give) and
 * the schemas added to `app` (its shared schemas, added before the first request). Call before any route is added.
 * Budget: `startEmulator()` <= 50 ms (compiling every route at start: ~180 ms).
 */
export function installLazyCompilers(app: FastifyInstance, ajv: AjvOptions): void {
  validatorPool ??= AjvCompiler();
  serializerPool ??= SerializerSelector();
  const validators = validatorPool;
  const serializers = serializerPool;
  let compileValidator: ReturnType<ValidatorPool> | undefined;
  let compileSerializer: ReturnType<SerializerPool> | undefined;
  app.setValidatorCompiler<unknown>((route) => {
    // A query its handler checks: its schema is typed for the OpenAPI document (integers, comma lists), not the raw strings.
    if (
      route.httpPart === 'querystring' &&
      isObject(route.schema) &&
      route.schema[CHECKED_BY_HANDLER] === true
    )
      return PASS;
    let validate: ReturnType<ReturnType<ValidatorPool>> | undefined;
    const lazy: RouteValidator = (data) => {
      if (!validate) {
        compiled.validators++;
        compileValidator ??= validators(externalSchemas(app), ajv);
        // @fastify/ajv-compiler's compile takes the route definition (it reads its `schema`), typed as a schema object.
        validate = compileValidator({ ...route });
      }
      const result = validate(data);
      // Only an `$async` schema answers with a promise; no route schema is one.
      if (typeof result !== 'boolean')
        throw new Error(`the ${route.httpPart} schema of ${route.url} is $async: not supported`);
      lazy.errors = validate.errors;
      return result;
    };
    return lazy;
  });
  app.setSerializerCompiler<unknown>((route) => {
    let serialize: Serializer | undefined;
    return (data) => {
      if (!serialize) {
        compiled.serializers++;
        compileSerializer ??= serializers(externalSchemas(app));
        serialize = compileSerializer({ ...route, httpStatus: route.httpStatus ?? 'default' });
      }
      return serialize(data);
    };
  });
}
