import { expect } from 'vitest';
import type { ApiResponse } from './http.js';
import { ERROR_TYPE_BY_STATUS } from '#contract';

/** The error type (docs/emulator-behaviour.md, "Envelope and errors") for each status: the contract's table. */
export { ERROR_TYPE_BY_STATUS } from '#contract';

/** Asserts a success envelope `{ ok: true, data, meta? }` with `status`; returns `data`. */
export function expectOk(response: ApiResponse, status = 200): any {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.ok).toBe(true);
  expect(Object.keys(response.body).every((k) => ['ok', 'data', 'meta'].includes(k))).toBe(true);
  expect(response.body).toHaveProperty('data');
  return response.body.data;
}

/**
 * Asserts the error envelope exactly: `{ ok: false, error: { message, error, details? } }`, the
 * status, the type docs/emulator-behaviour.md gives it, and every details entry's shape. Returns `error`.
 */
export function expectError(
  response: ApiResponse,
  status: number,
  type = ERROR_TYPE_BY_STATUS[status],
): { message: string; error: string; details?: any[] } {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.body;
  expect(Object.keys(body).sort()).toEqual(['error', 'ok']);
  expect(body.ok).toBe(false);
  const allowed = ['details', 'error', 'message'];
  expect(Object.keys(body.error).filter((k) => !allowed.includes(k))).toEqual([]);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.error).toBe(type);
  if ('details' in body.error) expectDetails(body.error.details);
  return body.error;
}

/** Asserts `details` is a non-empty array of `{ code, expected, received, path: string[], message }`. */
export function expectDetails(details: unknown): asserts details is Array<{
  code: string;
  expected: string;
  received: string;
  path: string[];
  message: string;
}> {
  expect(Array.isArray(details)).toBe(true);
  const list = details as any[];
  expect(list.length).toBeGreaterThan(0);
  for (const entry of list) {
    expect(Object.keys(entry).sort()).toEqual(['code', 'expected', 'message', 'path', 'received']);
    for (const key of ['code', 'expected', 'received', 'message'])
      expect(typeof entry[key], `${key} of ${JSON.stringify(entry)}`).toBe('string');
    expect(Array.isArray(entry.path)).toBe(true);
    for (const part of entry.path) expect(typeof part).toBe('string');
  }
}

/** Asserts a 400 with details, and that some detail's path starts with `path`; returns the details. */
export function expectValidationError(
  response: ApiResponse,
  path: string[],
  message?: string | RegExp,
) {
  const error = expectError(response, 400, 'VALIDATION_ERROR');
  if (message !== undefined) expect(error.message).toMatch(message);
  expectDetails(error.details);
  const paths = error.details.map((d) => d.path);
  expect(
    paths.some((p) => path.every((part, i) => p[i] === part)),
    `a detail at ${JSON.stringify(path)} in ${JSON.stringify(paths)}`,
  ).toBe(true);
  return error.details;
}
