// These tests change tokens and memberships under a client that keeps sending the same header,
// and check that every answer follows the change at once.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ORG,
  OTHER_ORG,
  TOKENS,
  startMatrixEmulator,
  type MatrixEmulator,
} from '../../kit/matrix-emulator.js';
import { expectError, expectOk } from '../../kit/envelope.js';

let m: MatrixEmulator;
beforeAll(async () => {
  m = await startMatrixEmulator();
});
afterAll(() => m.emu.close());

interface StoreExport {
  collections: Record<string, Array<Record<string, any>>>;
}

async function exported(): Promise<StoreExport> {
  return expectOk(await m.call('GET', '/_emulator/export')) as StoreExport;
}

async function imported(store: StoreExport): Promise<void> {
  expectOk(
    await m.call('POST', '/_emulator/import', {
      body: { format: 'plugsmith-emulator-export', version: 1, ...store },
    }),
  );
}

describe('a header the emulator has seen before', () => {
  test('follows a role change at once: a MEMBER made VIEWER stops seeing the webhook secret, then the plugin', async () => {
    const plugin = await m.createPlugin({ isPublic: false });
    for (let i = 0; i < 2; i++)
      expect(
        expectOk(await m.call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.member }))
          .webhookSecret,
      ).toBe(plugin.webhookSecret);

    const store = await exported();
    const mia = store.collections.memberships.find((r) => r.orgId === ORG && r.userId === 'u_mia')!;
    mia.role = 'VIEWER';
    await imported(store);
    const seen = expectOk(
      await m.call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.member }),
    );
    expect(seen.id).toBe(plugin.id);
    expect(seen).not.toHaveProperty('webhookSecret');
    expectError(
      await m.call('PUT', `/api/plugins/${plugin.id}`, {
        token: TOKENS.member,
        body: { name: 'renamed' },
      }),
      403,
    );

    // No membership at all: a private plugin is not found.
    store.collections.memberships = store.collections.memberships.filter((r) => r !== mia);
    await imported(store);
    expectError(await m.call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.member }), 404);
  });

  test('is refused at once when its token is gone, and another client is not affected', async () => {
    expectOk(await m.call('GET', `/api/orgs/${ORG}/plugins`, { token: TOKENS.viewer }));
    expectOk(await m.call('GET', `/api/orgs/${ORG}/plugins`, { token: `Bearer ${TOKENS.owner}` }));
    const store = await exported();
    store.collections.tokens = store.collections.tokens.filter((t) => t.userId !== 'u_vic');
    await imported(store);
    expectError(await m.call('GET', `/api/orgs/${ORG}/plugins`, { token: TOKENS.viewer }), 401);
    expectOk(await m.call('GET', `/api/orgs/${ORG}/plugins`, { token: `Bearer ${TOKENS.owner}` }));
  });

  test('a new token works at once beside others, and names its own user', async () => {
    expectOk(await m.call('GET', `/api/orgs/${ORG}/plugins`, { token: TOKENS.owner }));
    const created = expectOk(
      await m.call('POST', '/api/tokens', {
        token: TOKENS.owner,
        body: { name: 'second', orgId: ORG },
      }),
      201,
    );
    const limited: string = created.token;
    const inAcme = await m.createPlugin({ isPublic: false });
    const inBeta = await m.createPlugin({ isPublic: false }, OTHER_ORG);
    expect(
      expectOk(await m.call('GET', `/api/plugins/${inAcme.id}`, { token: limited })).webhookSecret,
    ).toBe(inAcme.webhookSecret);
    // Limited to ORG: a private plugin of another org is out of reach though its user is OWNER there.
    expectError(await m.call('GET', `/api/plugins/${inBeta.id}`, { token: limited }), 404);
    expect(
      expectOk(await m.call('GET', `/api/plugins/${inBeta.id}`, { token: TOKENS.owner }))
        .webhookSecret,
    ).toBe(inBeta.webhookSecret);
  });

  test('many headers and many orgs asked about: every answer stays right', async () => {
    // Unknown tokens are refused; a client asking about hundreds of orgs that do not exist is answered 404 each time.
    for (let i = 0; i < 50; i++)
      expectError(
        await m.call('GET', `/api/orgs/${ORG}/plugins`, { token: `pst_unknown_${i}` }),
        401,
      );
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        m.call('GET', `/api/orgs/org_none_${i}/plugins`, { token: TOKENS.owner }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(300).fill(404));
    const plugin = await m.createPlugin({ isPublic: false });
    expect(
      expectOk(await m.call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.owner }))
        .webhookSecret,
    ).toBe(plugin.webhookSecret);
    expectError(await m.call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.outsider }), 404);
  });
});
