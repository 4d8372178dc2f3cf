import type { FastifyInstance } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { useBoundedFormats } from '../validation/formats.js';
import type { OpenApiDocument, OpenApiNode } from './operations.js';

/** One response that does not match the OpenAPI document. */
export interface ContractViolation {
  method: string;
  url: string;
  route: string | null;
  status: number;
  problem: string;
}

declare global {
  /** The contract check's state in this process: on globalThis, so every copy of this module (a test file's, its setup file's) shares it. */
  var plugsmithContractCheck: { violations: ContractViolation[]; byDefault: boolean } | undefined;
}

const state = () => (globalThis.plugsmithContractCheck ??= { violations: [], byDefault: false });

/** The responses that did not match the document, in the emulators of this process that check them (oldest first; the caller may empty it). */
export function contractViolations(): ContractViolation[] {
  return state().violations;
}

/** Turns the contract check on (or off) for every emulator this process starts without a `contractCheck` option: a test suite's setup calls it. */
export function checkContractsByDefault(on = true): void {
  state().byDefault = on;
}

/** The `contractCheck` of an emulator started without one. */
export function contractCheckByDefault(): boolean {
  return state().byDefault;
}

/** Checks every JSON response of `app` against the document (a declared status, a body of its schema); collects violations, never throws. */
export function installContractCheck(
  app: FastifyInstance,
  document: () => Promise<OpenApiDocument>,
): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  useBoundedFormats(addFormats.default(ajv));
  const validators = new Map<string, ValidateFunction>();
  let doc: OpenApiDocument | undefined;
  const envelope = {
    oneOf: [
      {
        type: 'object',
        required: ['ok', 'data'],
        properties: { ok: { const: true }, data: {}, meta: { type: 'object' } },
        additionalProperties: false,
      },
      { $ref: '#/components/schemas/ErrorEnvelope' },
    ],
  };
  app.addHook('onSend', async (request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    const text =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : undefined;
    if (!type.includes('application/json') || text === undefined) return payload;
    const route = request.routeOptions.url ?? null;
    // The document itself, and the embedded object storage's signed URLs, are not operations of the three APIs.
    if (route === '/_emulator/openapi.json' || route?.startsWith('/_storage/')) return payload;
    doc ??= await document();
    const status = reply.statusCode;
    const record = (problem: string) =>
      contractViolations().push({
        method: request.method,
        url: request.url,
        route,
        status,
        problem,
      });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      record('the body is not JSON');
      return payload;
    }
    // The prefix's own route (`/api/`) is documented without its trailing slash, as clients call it.
    const path = route?.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
    const operation = path ? doc.paths?.[path]?.[request.method.toLowerCase()] : undefined;
    const declared = Object.entries<OpenApiNode>(operation?.responses ?? {}).filter(
      ([, r]) => r?.content?.['application/json']?.schema,
    );
    let key = 'envelope';
    let schema: Record<string, unknown> = envelope;
    // A route missing from the document is one a test added to its own app: only the envelope is checked.
    if (declared.length > 0) {
      const match = declared.find(([code]) => code === String(status));
      if (!match) {
        record(
          `status ${status} is not declared (declared: ${declared.map(([c]) => c).join(', ')})`,
        );
      } else {
        key = `${request.method} ${path} ${status}`;
        schema = match[1].content['application/json'].schema;
      }
    }
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: doc.components });
      validators.set(key, validate);
    }
    if (!validate(body)) record(ajv.errorsText(validate.errors, { separator: '; ' }));
    return payload;
  });
}
