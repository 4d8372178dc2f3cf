import { afterAll, beforeAll, expect } from 'vitest';
import {
  checkContractsByDefault,
  contractViolations,
} from '../../emulator/openapi/contract-check.js';

// The contract test (vitest setupFiles): every emulator a test file starts (in this process) checks each JSON response
// it sends against the OpenAPI document (emulator/openapi/contract-check.ts); after the file, the
// suites listed here fail on any response that does not match (status, envelope, body schema).
checkContractsByDefault();

/** Suites whose every response must match the document. */
const CHECKED = [
  'test/emulator/api/',
  'test/emulator/admin/',
  'test/emulator/messaging/',
  'test/client/',
  'test/contract/',
  'test/security/',
];

const collected = contractViolations;

beforeAll(() => {
  collected().length = 0;
});

afterAll(() => {
  const file = expect.getState().testPath ?? '';
  if (!CHECKED.some((dir) => file.includes(dir))) return;
  const found = collected().map((v) => `${v.method} ${v.url} -> ${v.status}: ${v.problem}`);
  expect(found, 'responses that do not match the OpenAPI document').toEqual([]);
});
