import { expect } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { adminCall } from './http.js';

/** The store's contents as the export (`GET /_emulator/export`) shows them, without its timestamp. */
export async function exported(emu: Emulator): Promise<Record<string, unknown[]>> {
  const res = await adminCall(emu, 'GET', '/_emulator/export');
  expect(res.status).toBe(200);
  return res.body.data.collections;
}
