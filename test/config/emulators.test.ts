import { describe, expect, test } from 'vitest';
import { adminTokenFor } from '../../src/config/admin-token.js';
import { namedEmulator } from '../../src/config/emulators.js';
import { emulatorRunningAt } from '../kit/emulator-state.js';

describe('the running emulator a URL names', () => {
  test('--emulator and the admin token find it however its URL is spelled: case, default port, trailing slash, any loopback host', async () => {
    const state = await emulatorRunningAt('http://127.0.0.1:4010');
    for (const url of [
      'http://127.0.0.1:4010/',
      'http://LOCALHOST:4010',
      'http://[::1]:4010//',
      'http://127.0.0.1:4011',
    ]) {
      expect((await namedEmulator(url))?.path, url).toBe(state.path);
    }
    for (const url of ['http://127.0.0.1:4010/', 'http://LOCALHOST:4010', 'http://[::1]:4010//'])
      expect(await adminTokenFor(url), url).toBe('adm_test');
    await expect(namedEmulator('http://localhost:4020')).rejects.toThrow(
      'no emulator started on this machine answers at http://localhost:4020 (--emulator)',
    );
    expect(await adminTokenFor('http://localhost:4020')).toBeUndefined();
  });

  test('an emulator listening on a host name is found by its default port written out too', async () => {
    const state = await emulatorRunningAt('http://devbox.test');
    expect((await namedEmulator('http://DEVBOX.test:80/'))?.path).toBe(state.path);
    expect(await adminTokenFor('http://DEVBOX.test:80/')).toBe('adm_test');
  });
});
