import { describe, expect, test } from 'vitest';
import { ORG, OTHER_ORG, TOKENS, useMatrixEmulator } from '../../../kit/matrix-emulator.js';
import { expectError, expectOk, expectValidationError } from '../../../kit/envelope.js';
import { emulatorInternals } from '../../../../emulator/internals.js';

const emulator = useMatrixEmulator();
const call = (...args: Parameters<(typeof emulator)['current']['call']>) =>
  emulator.current.call(...args);

describe('POST /api/tokens', () => {
  test('creates a token for the calling user, returned once at data.token, and it works', async () => {
    const data = expectOk(
      await call('POST', '/api/tokens', { token: TOKENS.member, body: { name: 'ci' } }),
      201,
    );
    expect(data).toMatchObject({ name: 'ci', orgId: null });
    expect(data.token).toMatch(/^pst_/);
    expect(typeof data.id).toBe('string');
    expect(new Date(data.createdAt).toISOString()).toBe(data.createdAt);
    expect(JSON.stringify(data)).not.toMatch(/hash/i);
    // The new token carries its user's role: Mia is MEMBER of ORG, so she may create but not delete.
    const plugin = await emulator.current.createPlugin();
    expectOk(
      await call('PUT', `/api/plugins/${plugin.id}`, {
        token: data.token,
        body: { description: 'edited with the new token' },
      }),
    );
    expectError(await call('DELETE', `/api/plugins/${plugin.id}`, { token: data.token }), 403);
  });

  test('only a hash of the token is stored', async () => {
    const { token } = expectOk(
      await call('POST', '/api/tokens', { token: TOKENS.owner, body: { name: 'stored' } }),
      201,
    );
    const stored = JSON.stringify([...emulatorInternals(emulator.current.emu).db.tokens.values()]);
    expect(stored).not.toContain(token);
  });

  test('both "<token>" and "Bearer <token>" are accepted; other schemes are 401', async () => {
    expectOk(
      await call('POST', '/api/tokens', { token: `Bearer ${TOKENS.viewer}`, body: { name: 'a' } }),
      201,
    );
    expectOk(
      await call('POST', '/api/tokens', { token: `bearer ${TOKENS.viewer}`, body: { name: 'b' } }),
      201,
    );
    expectError(
      await call('POST', '/api/tokens', { token: `Basic ${TOKENS.viewer}`, body: { name: 'c' } }),
      401,
    );
    expectError(await call('POST', '/api/tokens', { token: 'Bearer', body: { name: 'd' } }), 401);
  });

  describe('with orgId: a token limited to that org', () => {
    test('works inside the org with the user role there, and not outside it', async () => {
      // Olive is OWNER of both orgs; her token limited to ORG must not reach OTHER_ORG.
      const data = expectOk(
        await call('POST', '/api/tokens', {
          token: TOKENS.owner,
          body: { name: 'acme only', orgId: ORG },
        }),
        201,
      );
      expect(data.orgId).toBe(ORG);
      const limited = data.token as string;
      expectOk(await call('GET', `/api/orgs/${ORG}/repositories`, { token: limited }));
      expectOk(
        await call('POST', `/api/orgs/${ORG}/plugins`, {
          token: limited,
          body: { name: 'in acme', type: 'APP' },
        }),
        201,
      );

      expectError(
        await call('GET', `/api/orgs/${OTHER_ORG}/repositories`, { token: limited }),
        403,
      );
      expectError(
        await call('POST', `/api/orgs/${OTHER_ORG}/plugins`, {
          token: limited,
          body: { name: 'in beta', type: 'APP' },
        }),
        403,
      );
      expectError(
        await call('POST', '/api/repositories', {
          token: limited,
          body: { name: 'in beta', orgId: OTHER_ORG },
        }),
        403,
      );
      const betaPrivate = await emulator.current.createPlugin({}, OTHER_ORG);
      expectError(await call('GET', `/api/plugins/${betaPrivate.id}`, { token: limited }), 404);
      const betaPublic = await emulator.current.createPlugin({ isPublic: true }, OTHER_ORG);
      const seen = expectOk(await call('GET', `/api/plugins/${betaPublic.id}`, { token: limited }));
      expect(seen).not.toHaveProperty('webhookSecret');
    });

    test('a limited token cannot mint a broader token nor one for another org', async () => {
      const broader = expectError(
        await call('POST', '/api/tokens', { token: TOKENS.limitedInside, body: { name: 'x' } }),
        403,
      );
      expect(broader.message).toContain(ORG);
      expectError(
        await call('POST', '/api/tokens', {
          token: TOKENS.limitedInside,
          body: { name: 'x', orgId: null },
        }),
        403,
      );
      expectError(
        await call('POST', '/api/tokens', {
          token: TOKENS.limitedInside,
          body: { name: 'x', orgId: OTHER_ORG },
        }),
        403,
      );
      const same = expectOk(
        await call('POST', '/api/tokens', {
          token: TOKENS.limitedInside,
          body: { name: 'x', orgId: ORG },
        }),
        201,
      );
      expect(same.orgId).toBe(ORG);
    });

    test('needs membership of the org; an unknown org is 404', async () => {
      expectError(
        await call('POST', '/api/tokens', {
          token: TOKENS.outsider,
          body: { name: 'x', orgId: ORG },
        }),
        403,
      );
      expectOk(
        await call('POST', '/api/tokens', {
          token: TOKENS.viewer,
          body: { name: 'x', orgId: ORG },
        }),
        201,
      );
      expectError(
        await call('POST', '/api/tokens', {
          token: TOKENS.owner,
          body: { name: 'x', orgId: 'org_nope' },
        }),
        404,
      );
    });
  });

  test('bodies are validated: name required, known fields only, right types', async () => {
    const post = (body: unknown) => call('POST', '/api/tokens', { token: TOKENS.owner, body });
    expectValidationError(await post({}), ['name']);
    expectValidationError(await post({ name: '' }), ['name']);
    expectValidationError(await post({ name: 5 }), ['name']);
    expectValidationError(await post({ name: 'x', orgId: 5 }), ['orgId']);
    const unknown = expectValidationError(await post({ name: 'x', scopes: ['all'] }), ['scopes']);
    expect(unknown[0]).toMatchObject({
      code: 'additionalProperties',
      expected: 'absent',
      received: 'scopes',
    });
  });

  test('without a token the answer is 401, even with an invalid body', async () => {
    expectError(await call('POST', '/api/tokens', { body: { name: 'x' } }), 401);
    expectError(await call('POST', '/api/tokens', { body: { nope: true } }), 401);
  });
});
