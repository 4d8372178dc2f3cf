import { afterAll, beforeAll, expect } from 'vitest';
import { CONTRACT_VIOLATIONS, type ContractViolation } from '../../emulator/openapi/contract-check.js';

// The contract test (vitest setupFiles): every emulator a test file starts checks each JSON response
// it sends against the OpenAPI document (emulator/openapi/contract-check.ts); after the file, the
// suites listed here fail on any response that does not match (status, envelope, body schema).
process.env.PLUGSMITH_CONTRACT_CHECK = '1';

/** Suites whose every response must match the document. */
const CHECKED = ['test/emulator/routes/', 'test/emulator/messaging/', 'test/client/', 'test/contract/', 'test/security/'];

const collected = () => ((globalThis as unknown as Record<symbol, ContractViolation[] | undefined>)[CONTRACT_VIOLATIONS] ??= []);

beforeAll(() => {
  collected().length = 0;
});

afterAll(() => {
  const file = expect.getState().testPath ?? '';
  if (!CHECKED.some((dir) => file.includes(dir))) return;
  const found = collected().map((v) => `${v.method} ${v.url} -> ${v.status}: ${v.problem}`);
  expect(found, 'responses that do not match the OpenAPI document').toEqual([]);
});
