import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { CHECKED_BY_HANDLER } from '../src/shared/contract/index.js';

// fastify's own compilers (the packages its docs name for `schemaController.compilersFactory`), made lazy.

type Factories = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type RouteValidator = ((data: unknown) => unknown) & { errors?: unknown };
type ValidatorPool = ReturnType<typeof AjvCompiler>;
type SerializerPool = ReturnType<typeof SerializerSelector>;
type Serializer = (data: unknown) => string;
type SerializerRoute = Parameters<ReturnType<SerializerPool>>[0];

/** The validator of a part its handler checks. */
const PASS: RouteValidator = () => true;

let validatorPool: ValidatorPool | undefined;
let serializerPool: SerializerPool | undefined;

/** How many route schemas were compiled in this process (validators asked of ajv, serializers built): for tests. */
export const compiled = { validators: 0, serializers: 0 };

/** Compilers that compile a route's schema at its first request. Budget: `startEmulator()` <= 50 ms (compiling every route at start: ~180 ms). */
export function lazyCompilers(): NonNullable<FastifyServerOptions['schemaController']> {
  validatorPool ??= AjvCompiler();
  serializerPool ??= SerializerSelector();
  const validators = validatorPool;
  const serializers = serializerPool;
  const buildValidator = (
    externalSchemas: Parameters<ValidatorPool>[0],
    options: Parameters<ValidatorPool>[1],
  ) => {
    const compile = validators(externalSchemas, options);
    return (route: { schema?: Record<string, unknown>; httpPart?: string }) => {
      // A query its handler checks: its schema is typed for the OpenAPI document (integers, comma lists), not the raw strings.
      if (route.httpPart === 'querystring' && route.schema?.[CHECKED_BY_HANDLER] === true)
        return PASS;
      let validate: RouteValidator | undefined;
      const lazy: RouteValidator = (data) => {
        if (!validate) {
          compiled.validators++;
          validate = compile(route as never) as RouteValidator;
        }
        const result = validate(data);
        lazy.errors = validate.errors;
        return result;
      };
      return lazy;
    };
  };
  const buildSerializer = (
    externalSchemas: Parameters<SerializerPool>[0],
    options: Parameters<SerializerPool>[1],
  ) => {
    const compile = serializers(externalSchemas, options);
    return (route: SerializerRoute): Serializer => {
      let serialize: Serializer | undefined;
      return (data) => {
        if (!serialize) {
          compiled.serializers++;
          serialize = compile(route);
        }
        return serialize(data);
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
