import { describe, expect, test } from 'vitest';
import {
  ORG,
  OTHER_ORG,
  OTHER_REPOSITORY,
  REPOSITORY,
  TOKENS,
  useMatrixEmulator,
} from '../../../kit/matrix-emulator.js';
import { expectError, expectOk, expectValidationError } from '../../../kit/envelope.js';

const emulator = useMatrixEmulator();
const call = (...args: Parameters<(typeof emulator)['current']['call']>) =>
  emulator.current.call(...args);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('creating repositories', () => {
  test.each([
    [
      'POST /api/repositories',
      '/api/repositories',
      { name: 'Handbook', description: 'Company handbook', orgId: ORG },
    ],
    [
      'POST /api/orgs/:orgId/repositories',
      `/api/orgs/${ORG}/repositories`,
      { name: 'Handbook 2', description: 'Second edition' },
    ],
  ])('%s: 201 with id, name, description, orgId and timestamps', async (_name, path, body) => {
    const data = expectOk(await call('POST', path, { token: TOKENS.member, body }), 201);
    expect(data).toMatchObject({ name: body.name, description: body.description, orgId: ORG });
    expect(data.id).toMatch(/^repo_/);
    expect(data.createdAt).toMatch(ISO);
    expect(data.updatedAt).toBe(data.createdAt);
    expect(
      expectOk(await call('GET', `/api/repositories/${data.id}`, { token: TOKENS.viewer })),
    ).toEqual(data);
  });

  test('description is optional (empty string)', async () => {
    const data = expectOk(
      await call('POST', `/api/orgs/${ORG}/repositories`, {
        token: TOKENS.owner,
        body: { name: 'Bare' },
      }),
      201,
    );
    expect(data.description).toBe('');
  });

  test('orgId in the body of the org-path variant is refused with details', async () => {
    expectValidationError(
      await call('POST', `/api/orgs/${ORG}/repositories`, {
        token: TOKENS.owner,
        body: { name: 'x', orgId: ORG },
      }),
      ['orgId'],
    );
  });

  test.each([
    ['no orgId on /api/repositories', '/api/repositories', { name: 'x' }, ['orgId']],
    ['no name', '/api/repositories', { orgId: ORG }, ['name']],
    ['an unknown field', `/api/orgs/${ORG}/repositories`, { name: 'x', files: [] }, ['files']],
    ['a numeric name', `/api/orgs/${ORG}/repositories`, { name: 3 }, ['name']],
  ])('%s is a 400 with details', async (_name, path, body, detailPath) => {
    expectValidationError(await call('POST', path, { token: TOKENS.owner, body }), detailPath);
  });

  test('an unknown org is 404; VIEWER and non-members get 403', async () => {
    expectError(
      await call('POST', '/api/repositories', {
        token: TOKENS.owner,
        body: { name: 'x', orgId: 'org_nope' },
      }),
      404,
    );
    expectError(
      await call('POST', '/api/orgs/org_nope/repositories', {
        token: TOKENS.owner,
        body: { name: 'x' },
      }),
      404,
    );
    expectError(
      await call('POST', `/api/orgs/${ORG}/repositories`, {
        token: TOKENS.viewer,
        body: { name: 'x' },
      }),
      403,
    );
    expectError(
      await call('POST', `/api/orgs/${ORG}/repositories`, {
        token: TOKENS.outsider,
        body: { name: 'x' },
      }),
      403,
    );
  });

  test('without a token: 401, even for an unknown org', async () => {
    expectError(
      await call('POST', '/api/repositories', { body: { name: 'x', orgId: 'org_nope' } }),
      401,
    );
    expectError(await call('GET', '/api/orgs/org_nope/repositories'), 401);
  });
});

describe('reading repositories', () => {
  test('GET /api/repositories/:repositoryId needs membership of its org: 404 otherwise', async () => {
    expect(
      expectOk(await call('GET', `/api/repositories/${REPOSITORY}`, { token: TOKENS.viewer })),
    ).toMatchObject({ id: REPOSITORY, orgId: ORG, name: 'Acme docs' });
    expectError(
      await call('GET', `/api/repositories/${REPOSITORY}`, { token: TOKENS.outsider }),
      404,
    );
    expectError(
      await call('GET', `/api/repositories/${OTHER_REPOSITORY}`, { token: TOKENS.limitedInside }),
      404,
    );
    expectError(await call('GET', '/api/repositories/repo_missing', { token: TOKENS.owner }), 404);
  });

  test('GET /api/orgs/:orgId/repositories lists the org repositories only; a non-member gets 403', async () => {
    const response = await call('GET', `/api/orgs/${OTHER_ORG}/repositories`, {
      token: TOKENS.outsider,
    });
    const data = expectOk(response);
    expect(data.map((r: any) => r.id)).toEqual([OTHER_REPOSITORY]);
    expect(response.body.meta.pagination).toEqual({
      type: 'index',
      page: 1,
      limit: 20,
      total: 1,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });
    const forbidden = expectError(
      await call('GET', `/api/orgs/${OTHER_ORG}/repositories`, { token: TOKENS.member }),
      403,
    );
    expect(forbidden.message).toContain('member');
    const limited = expectError(
      await call('GET', `/api/orgs/${OTHER_ORG}/repositories`, { token: TOKENS.limitedInside }),
      403,
    );
    expect(limited.message).toContain('limited');
    expectError(await call('GET', '/api/orgs/org_nope/repositories', { token: TOKENS.owner }), 404);
  });
});
